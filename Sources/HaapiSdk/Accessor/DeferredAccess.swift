import Foundation
@_spi(Tooling) import HaapiDriver
@_spi(Tooling) import HaapiModel

/// What `HaapiAccessorBuilder.build()` (the synchronous form) hands out: managers whose client, attested or
/// registered through the DCR fallback, is decided on their first call instead of before `build()` returns.
///
/// The decision starts in the background at once, and runs once: concurrent first calls share it. A
/// failure is returned to the calls that waited for it and the next call tries again (a device that was
/// offline at launch recovers), while a success is kept for the life of the accessor.
final class DeferredAccess: Sendable {
    typealias Resolved = (manager: HaapiManager?, oauth: OAuthTokenManager)
    private let decide: @Sendable () async throws(HaapiError) -> Resolved
    private let state = ResolutionState()

    init(decide: @escaping @Sendable () async throws(HaapiError) -> Resolved) {
        self.decide = decide
        Task { _ = await self.resolve() }
    }

    /// The managers once decided; nil before (and after a failed attempt).
    var resolved: Resolved? { state.resolved }

    func resolve() async -> Result<Resolved, HaapiError> {
        if let resolved = state.resolved { return .success(resolved) }
        let attempt = state.attempt { [decide] in
            do throws(HaapiError) { return .success(try await decide()) } catch { return .failure(error) }
        }
        let result = await attempt.value
        state.finish(attempt, with: result)
        return result
    }
}

/// The state of one `DeferredAccess`: the result once decided, and the attempt in flight. Behind the lock
/// wrapper, never held across a suspension.
private final class ResolutionState: Sendable {
    typealias Attempt = Task<Result<DeferredAccess.Resolved, HaapiError>, Never>
    private struct Members: Sendable {
        var result: DeferredAccess.Resolved?
        var running: Attempt?
    }
    private let members = LockedValue(Members())

    var resolved: DeferredAccess.Resolved? { members.get().result }

    /// The attempt in flight, or a new one started with `body`.
    func attempt(_ body: @escaping @Sendable () async -> Result<DeferredAccess.Resolved, HaapiError>) -> Attempt {
        members.withLock { members in
            if let running = members.running { return running }
            let task = Task { await body() }
            members.running = task
            return task
        }
    }

    func finish(_ attempt: Attempt, with outcome: Result<DeferredAccess.Resolved, HaapiError>) {
        members.withLock { members in
            if case .success(let resolved) = outcome, members.result == nil { members.result = resolved }
            // Only the attempt that finished is cleared: a failure lets the next call try again.
            if members.running == attempt { members.running = nil }
        }
    }
}
