import Foundation
import HaapiRawClient
import NIOCore
import NIOPosix
import Testing

@testable import HaapiServer

/// The event loops a server answers on are its own (issue 51 item 8): created by `start`, apart from SwiftNIO's
/// shared loops, and shut down when it stops.
@Suite("Connection loops: owned by the server that runs on them", .timeLimit(.minutes(1)))
struct ConnectionLoopsTests {
    #if canImport(Glibc)
    /// The kernel's names of this process's threads.
    static func threadNames() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").compactMap {
            try? String(contentsOfFile: "/proc/self/task/\($0)/comm", encoding: .utf8)
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }

    @Test("while it runs its loops' threads answer; once it stopped they are gone")
    func ownedLoops() async throws {
        let server = try DevServer(configuration: try TestConfiguration.make(), store: ServerStore(path: nil))
        let running = try await server.start()
        #expect(running.loops.group !== MultiThreadedEventLoopGroup.singleton)
        let health = try await RawHTTP.send("GET", running.baseURL.appendingPathComponent("health").absoluteString)
        #expect(health.status == 200)
        let names = try await withThrowingTaskGroup(of: String.self) { group in
            for loop in running.loops.group.makeIterator() {
                group.addTask {
                    try await loop.submit { () -> String in
                        let name = try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)
                        return (name ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
                    }.get()
                }
            }
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(names.count == System.coreCount)
        #expect(Set(try Self.threadNames()).isSuperset(of: names), "\(names)")
        await running.stop()
        let left = Set(try Self.threadNames()).intersection(names)
        #expect(left.isEmpty, "the server's loops still run after stop: \(left)")
    }
    #endif

    /// A task can keep a stopped server's loop as its preference (one a handler started, or an actor's work that
    /// ran there): its next job must still run, on Swift's pool, rather than be dropped by a loop that is gone.
    @Test("a job for a closed server's loop runs on Swift's pool instead of being lost")
    func jobAfterClose() async throws {
        guard #available(macOS 15, iOS 18, tvOS 18, watchOS 11, *) else { return }
        let loops = ServerLoops()
        let executor = EventLoopTaskExecutor(loops.group.next(), of: loops)
        let before = await Task(executorPreference: executor) { executor.loop.inEventLoop }.value
        #expect(before, "while open, the job runs on the loop")
        await loops.close()
        let finished = await withTaskGroup(of: Bool.self) { group in
            group.addTask { await Task(executorPreference: executor) { !executor.loop.inEventLoop }.value }
            group.addTask {
                // Generous: in the full suite both cooperative threads can be busy for seconds at a time.
                try? await Task.sleep(for: .seconds(45))
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
        #expect(finished, "the job never ran (or ran on a closed loop)")
    }
}
