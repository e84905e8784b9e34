import Foundation
@_spi(Tooling) import HaapiDriver

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes the server's lines (its summary, a line per refused request) to a file descriptor without ever making
/// a request wait for the reader.
///
/// `write(_:)` only queues the line; one thread of its own writes the queue out. When nobody reads (a paused
/// terminal, `| less`), the queue fills up to `capacity` lines (4 MiB at most: a line is cut at 4 KiB, and a
/// refusal line is about 300 bytes) and further lines are dropped and counted; the count is written as a line
/// of its own once the reader takes lines again. When the reader is gone (EPIPE, a closed descriptor), logging
/// ends and the server goes on: SIGPIPE is ignored, and nothing traps. The writing thread lives as long as the
/// process: make one for the process's output.
public final class LineWriter: Sendable {
    private struct State {
        var queued: [String] = []
        var droppedSinceReport = 0
        var droppedInAll = 0
        var isClosed = false
        var isWriting = false
    }

    /// The longest line kept, in bytes (a refusal line is about 300, the summary's longest about 150).
    static let maxLineBytes = 4096

    private let descriptor: Int32
    private let capacity: Int
    private let state = LockedValue(State())
    private let wakeUp = DispatchSemaphore(value: 0)

    public init(descriptor: Int32 = STDOUT_FILENO, capacity: Int = 1024) {
        self.descriptor = descriptor
        self.capacity = max(capacity, 1)
        // A reader that went away must end the log, not the process.
        signal(SIGPIPE, SIG_IGN)
        let thread = Thread { [self] in drain() }
        thread.name = "haapi.log-writer"
        thread.start()
    }

    /// Queues `line` (a newline is added); drops it, counting, when the queue is full or the output gone.
    public func write(_ line: String) {
        let cut =
            line.utf8.count > Self.maxLineBytes
            ? String(decoding: line.utf8.prefix(Self.maxLineBytes), as: UTF8.self) + "…" : line
        let queued = state.withLock { state -> Bool in
            guard !state.isClosed, state.queued.count < capacity else {
                if !state.isClosed {
                    state.droppedSinceReport += 1
                    state.droppedInAll += 1
                }
                return false
            }
            state.queued.append(cut)
            return true
        }
        if queued { wakeUp.signal() }
    }

    /// Lines dropped so far because nobody read them.
    public var droppedLines: Int { state.get().droppedInAll }

    /// Whether the output is gone (its reader closed it): nothing more is written.
    public var isClosed: Bool { state.get().isClosed }

    /// Waits until every queued line is written, the output is gone, or `seconds` pass (before the process ends).
    public func flush(seconds: Double = 1) {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            let done = state.withLock { $0.isClosed || ($0.queued.isEmpty && !$0.isWriting) }
            if done { return }
            usleep(10_000)
        }
    }

    private func drain() {
        while true {
            wakeUp.wait()
            let (lines, dropped) = state.withLock { state -> ([String], Int) in
                let taken = (state.queued, state.droppedSinceReport)
                state.queued.removeAll(keepingCapacity: true)
                state.droppedSinceReport = 0
                state.isWriting = !taken.0.isEmpty || taken.1 > 0
                return taken
            }
            guard !lines.isEmpty || dropped > 0 else { continue }
            var text = ""
            if dropped > 0 {
                text += "haapi serve: \(dropped) line\(dropped == 1 ? "" : "s") dropped: the output was not read\n"
            }
            for line in lines { text += line + "\n" }
            let written = writeAll(Array(text.utf8))
            state.withLock {
                $0.isWriting = false
                if !written {
                    $0.isClosed = true
                    $0.queued.removeAll()
                }
            }
            if !written { return }
        }
    }

    /// Writes every byte, blocking while the reader is slow; false once the output is gone.
    private func writeAll(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let count = bytes[offset...].withUnsafeBytes { systemWrite(descriptor, $0.baseAddress, $0.count) }
            if count > 0 {
                offset += count
            } else if count < 0, errno == EINTR || errno == EAGAIN {
                if errno == EAGAIN { usleep(10_000) }
            } else {
                return false
            }
        }
        return true
    }
}

/// write(2), whichever C library provides it.
private func systemWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
    #if canImport(Glibc)
    Glibc.write(descriptor, buffer, count)
    #else
    Darwin.write(descriptor, buffer, count)
    #endif
}
