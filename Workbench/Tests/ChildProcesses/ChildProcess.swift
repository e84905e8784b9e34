import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A command the tests start, watch and stop: the part of Foundation's `Process` they use, on `posix_spawn`.
///
/// Why not `Process`: on Linux, swift-corelibs-foundation's `Process.run()` lists `/proc/self/fd` by copying
/// each directory entry's whole 256-byte name field, and crashes now and then when an entry sits at the end of
/// readdir's buffer (swiftlang/swift-corelibs-foundation#5472, in Swift 6.3.1). The workbench suite starts a
/// few hundred commands beside dozens of open sockets and hit it. Here the child closes every descriptor above
/// standard error with `closefrom` semantics instead, and one thread a child waits for its end.
///
/// Like `Process`, the child gets a process group of its own, so a signal meant for the test runner's group
/// does not reach it; unlike it, the child's signals start unblocked and at their defaults, as from a shell.
public final class ChildProcess: @unchecked Sendable {
    /// Where one of the child's standard streams goes.
    public enum Stream {
        /// The parent's own stream.
        case inherit
        /// `/dev/null`.
        case null
        /// One end of a pipe: the child reads `Pipe.fileHandleForReading` as its input, writes to
        /// `fileHandleForWriting` as its output; the parent's copy of the child's end is closed once it runs.
        case pipe(Pipe)
        /// An open file.
        case file(FileHandle)
    }

    /// How the child ended.
    public enum TerminationReason: Sendable, Equatable {
        /// It exited; `terminationStatus` is its exit code.
        case exit
        /// A signal ended it; `terminationStatus` is the signal's number.
        case uncaughtSignal
    }

    public let executable: URL
    public let arguments: [String]
    /// The child's environment; `nil` passes this process's own.
    public let environment: [String: String]?
    private let streams: (input: Stream, output: Stream, error: Stream)

    // Guarded by `condition`: the child's id, and how it ended once its waiting thread has reaped it.
    private let condition = NSCondition()
    private var pid: pid_t = 0
    private var ended: (reason: TerminationReason, status: Int32)?

    /// A child not started yet; `run()` starts it.
    public init(
        _ executable: URL, arguments: [String], environment: [String: String]? = nil,
        input: Stream = .null, output: Stream = .inherit, error: Stream = .inherit
    ) {
        self.executable = executable
        self.arguments = arguments
        self.environment = environment
        self.streams = (input, output, error)
    }

    /// Starts the child; throws the spawn's error (a missing executable, say).
    public func run() throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        let null = open("/dev/null", O_RDWR | O_CLOEXEC)
        defer { if null >= 0 { close(null) } }
        for (target, stream, childEnd) in [
            (STDIN_FILENO, streams.input, { (pipe: Pipe) in pipe.fileHandleForReading }),
            (STDOUT_FILENO, streams.output, { (pipe: Pipe) in pipe.fileHandleForWriting }),
            (STDERR_FILENO, streams.error, { (pipe: Pipe) in pipe.fileHandleForWriting }),
        ] {
            switch stream {
            case .inherit: continue
            case .null: posix_spawn_file_actions_adddup2(&actions, null, target)
            case .pipe(let pipe): posix_spawn_file_actions_adddup2(&actions, childEnd(pipe).fileDescriptor, target)
            case .file(let handle): posix_spawn_file_actions_adddup2(&actions, handle.fileDescriptor, target)
            }
        }
        #if canImport(Glibc)
        try closeInheritedDescriptors(&actions)
        #endif
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // The child starts as a shell would start it: no signal blocked (libdispatch blocks the signals it
        // watches, and a mask is inherited), every signal at its default action (an ignored one is inherited
        // too), in a process group of its own.
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var every = sigset_t()
        sigemptyset(&every)
        // The classic signals, but the two no process can catch (a platform may refuse a default for them).
        for signal: Int32 in 1..<32 where signal != SIGKILL && signal != SIGSTOP { sigaddset(&every, signal) }
        posix_spawnattr_setsigdefault(&attributes, &every)
        var flags = POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF
        #if canImport(Darwin)
        flags |= POSIX_SPAWN_CLOEXEC_DEFAULT
        #endif
        posix_spawnattr_setflags(&attributes, Int16(flags))

        let argv = ([executable.path] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        let variables = (environment ?? ProcessInfo.processInfo.environment).map { strdup("\($0)=\($1)") } + [nil]
        defer { for pointer in variables { free(pointer) } }
        var child: pid_t = 0
        let code = posix_spawn(&child, executable.path, &actions, &attributes, argv, variables)
        guard code == 0 else {
            throw CocoaError(.fileReadUnknown, userInfo: [NSFilePathErrorKey: executable.path, "errno": code])
        }
        // The child has its copies; the parent's copies of the child's ends go, so the parent's reader sees
        // the end of the output when the child exits.
        for (stream, childEnd) in [
            (streams.input, { (pipe: Pipe) in pipe.fileHandleForReading }),
            (streams.output, { (pipe: Pipe) in pipe.fileHandleForWriting }),
            (streams.error, { (pipe: Pipe) in pipe.fileHandleForWriting }),
        ] {
            if case .pipe(let pipe) = stream { try? childEnd(pipe).close() }
        }
        let started = child
        condition.withLock { pid = started }
        Thread { [self] in reap(started) }.start()
    }

    #if canImport(Glibc)
    /// The child closes every descriptor above standard error: glibc's `closefrom` action (2.34 and later;
    /// Swift's Glibc module does not declare it, so it is looked up), else one close action for each descriptor
    /// open now, read from `/proc/self/fd` entry by entry (without the over-read that crashes `Process`).
    private func closeInheritedDescriptors(_ actions: inout posix_spawn_file_actions_t) throws {
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        if let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np") {
            let closeFrom = unsafeBitCast(symbol, to: CloseFrom.self)
            if closeFrom(&actions, STDERR_FILENO + 1) == 0 { return }
        }
        guard let directory = opendir("/proc/self/fd") else { return }
        defer { closedir(directory) }
        let own = dirfd(directory)
        while let entry = readdir(directory) {
            let offset = MemoryLayout<dirent>.offset(of: \.d_name) ?? 0
            let name = String(cString: UnsafeRawPointer(entry).advanced(by: offset).assumingMemoryBound(to: CChar.self))
            if let descriptor = Int32(name), descriptor > STDERR_FILENO, descriptor != own {
                posix_spawn_file_actions_addclose(&actions, descriptor)
            }
        }
    }
    #endif

    /// Waits on its own thread for the child to end, and records how. The child is reaped under the lock, so
    /// `send` never signals an id the system may have given to another process.
    private func reap(_ child: pid_t) {
        var info = siginfo_t()
        while waitid(P_PID, id_t(child), &info, WEXITED | WNOWAIT) == -1 && errno == EINTR {}
        condition.withLock {
            var status: Int32 = 0
            while waitpid(child, &status, 0) == -1 && errno == EINTR {}
            let signal = status & 0x7f
            ended = signal == 0 ? (.exit, (status >> 8) & 0xff) : (.uncaughtSignal, signal)
            condition.broadcast()
        }
    }

    /// The child's process id (0 before `run()`).
    public var processIdentifier: pid_t { condition.withLock { pid } }

    /// Whether the child was started and has not ended.
    public var isRunning: Bool { condition.withLock { pid != 0 && ended == nil } }

    /// Sends `signal` to the child while it runs (never to a reaped id another process may have taken).
    public func send(_ signal: Int32) {
        condition.withLock {
            if pid != 0 && ended == nil { _ = kill(pid, signal) }
        }
    }

    /// SIGTERM.
    public func terminate() { send(SIGTERM) }

    /// SIGINT.
    public func interrupt() { send(SIGINT) }

    /// Blocks until the child has ended (returns at once if it was never started).
    public func waitUntilExit() {
        condition.withLock {
            while pid != 0 && ended == nil { condition.wait() }
        }
    }

    /// Waits without holding a thread of Swift's pool.
    public func exit() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Thread { [self] in
                waitUntilExit()
                continuation.resume()
            }.start()
        }
    }

    /// The exit code, or the signal's number (0 while it runs).
    public var terminationStatus: Int32 { condition.withLock { ended?.status ?? 0 } }

    /// How it ended (`.exit` while it runs).
    public var terminationReason: TerminationReason { condition.withLock { ended?.reason ?? .exit } }
}
