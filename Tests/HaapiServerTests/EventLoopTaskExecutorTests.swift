import NIOCore
import NIOPosix
import Testing

@testable import HaapiServer

/// Issue 15: the server's tasks run on SwiftNIO's event loops, where its connections are, so a request is
/// not handed between threads.
@Suite("The server's tasks on SwiftNIO's event loops")
struct EventLoopTaskExecutorTests {
    /// Whether the caller runs on one of `group`'s event loops.
    static func onLoop(of group: MultiThreadedEventLoopGroup) -> Bool {
        guard let current = MultiThreadedEventLoopGroup.currentEventLoop else { return false }
        return group.makeIterator().contains { $0 === current }
    }

    actor Counter {
        var value = 0
        func increment() { value += 1 }
    }

    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    @Test("a task, its child tasks, and what runs after an await or an actor call stay on the group's loops")
    func tasksStayOnTheLoops() async throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 2)
        #expect(!Self.onLoop(of: group), "the test starts on the cooperative pool")

        let counter = Counter()
        let placements = await withTaskExecutorPreference(EventLoopTaskExecutor(group: group)) {
            var placements = [Self.onLoop(of: group)]
            try? await Task.sleep(for: .milliseconds(5))
            placements.append(Self.onLoop(of: group))
            await counter.increment()
            placements.append(Self.onLoop(of: group))
            let children = await withTaskGroup(of: Bool.self) { tasks in
                for _ in 0..<8 {
                    tasks.addTask {
                        await counter.increment()
                        return Self.onLoop(of: group)
                    }
                }
                return await tasks.reduce(into: [Bool]()) { $0.append($1) }
            }
            return placements + children
        }
        #expect(placements.count == 11)
        #expect(placements.allSatisfy { $0 })
        #expect(await counter.value == 9)
        #expect(!Self.onLoop(of: group), "the preference ends with its scope")
        try await group.shutdownGracefully()
    }

    @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
    @Test("DevServer runs its server under that preference, on the loops Hummingbird serves connections on")
    func devServerUsesTheSingletonLoops() async throws {
        var ranOnLoop = false
        try await DevServer.onEventLoops {
            ranOnLoop = Self.onLoop(of: .singleton)
        }
        #expect(ranOnLoop)
        #expect(!Self.onLoop(of: .singleton))
    }
}
