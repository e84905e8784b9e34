import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The terminal: prompts (with hidden entry for secrets), colours when the output is a terminal and
/// NO_COLOR is unset, and a spinner line that rewrites itself.
///
/// `haapi login`, whose result goes to standard output, talks to the user on standard error, as gh and git do,
/// so `haapi login --json > tokens.json` leaves only the JSON in the file. `haapi demo` and
/// `haapi authhub login`, whose conversation is their result, use standard output.
struct TerminalIO: Sendable {
    enum Channel: Sendable { case standardOutput, standardError }

    let isInteractive: Bool
    let useColor: Bool
    let channel: Channel

    init(channel: Channel = .standardError) {
        self.channel = channel
        isInteractive = isatty(STDIN_FILENO) == 1
        let descriptor = channel == .standardOutput ? STDOUT_FILENO : STDERR_FILENO
        useColor = isatty(descriptor) == 1 && ProcessInfo.processInfo.environment["NO_COLOR"] == nil
    }

    private var handle: FileHandle { channel == .standardOutput ? .standardOutput : .standardError }

    enum Style: String {
        case red = "31"
        case yellow = "33"
        case green = "32"
        case cyan = "36"
        case dim = "2"
        case bold = "1"
    }

    func paint(_ text: String, _ style: Style) -> String {
        useColor ? "\u{1B}[\(style.rawValue)m\(text)\u{1B}[0m" : text
    }

    func say(_ text: String = "") {
        handle.write(Data((text + "\n").utf8))
    }

    func write(_ text: String) {
        handle.write(Data(text.utf8))
    }

    /// The terminal's width in columns (80 when it cannot be told).
    var columns: Int {
        #if os(Linux)
        var size = winsize()
        let descriptor = channel == .standardOutput ? STDOUT_FILENO : STDERR_FILENO
        if ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        #endif
        return Int(ProcessInfo.processInfo.environment["COLUMNS"] ?? "") ?? 80
    }

    /// Rewrites the current line with `text`, cut to the terminal's width: a line that wrapped would leave
    /// its first half behind on every redraw and scroll the screen.
    func status(_ text: String) {
        write("\r\u{1B}[K" + Self.truncate(text, toColumns: columns - 1))
    }

    /// `text` cut to `limit` visible characters; colour escapes do not count and are kept whole.
    static func truncate(_ text: String, toColumns limit: Int) -> String {
        var visible = 0
        var result = ""
        var inEscape = false
        for character in text {
            if character == "\u{1B}" { inEscape = true }
            if inEscape {
                result.append(character)
                if character.isLetter { inEscape = false }
                continue
            }
            guard visible < max(limit, 1) else { continue }
            result.append(character)
            visible += 1
        }
        return result
    }

    /// One line from standard input; `nil` at end of input. With `secret` the terminal does not echo it.
    ///
    /// Ctrl-C at the prompt ends the tool with 130 after putting echo back and finishing the line, so the
    /// shell is never left silent and the next prompt starts on a line of its own.
    func readLine(prompt: String, secret: Bool = false) async -> String? {
        write(prompt)
        let hide = secret && isInteractive
        if isInteractive { PromptInterrupt.arm(descriptor: channel == .standardOutput ? STDOUT_FILENO : STDERR_FILENO) }
        defer { if isInteractive { PromptInterrupt.disarm() } }
        if hide { Self.setEcho(false) }
        let line = await LineReader.shared.next()
        if hide {
            Self.setEcho(true)
            write("\n")
        }
        return line
    }

    /// Turns terminal echo off (for passwords) or back on.
    fileprivate static func setEcho(_ on: Bool) {
        var settings = termios()
        guard tcgetattr(STDIN_FILENO, &settings) == 0 else { return }
        if on { settings.c_lflag |= tcflag_t(ECHO) } else { settings.c_lflag &= ~tcflag_t(ECHO) }
        tcsetattr(STDIN_FILENO, TCSANOW, &settings)
    }

    static let spinnerFrames = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]
}

/// Ctrl-C while a prompt waits: a plain signal handler (only async-signal-safe calls: tcgetattr, tcsetattr,
/// write, _exit) puts echo back on, ends the prompt's line, says so and exits 130. Without it the default
/// action would kill the tool with echo still off after a password prompt. Outside prompts SIGINT keeps its
/// default (the polling loop installs its own while it waits).
enum PromptInterrupt {
    /// Where the prompt is written; read by the handler, so a plain global set before the handler is armed.
    nonisolated(unsafe) private static var descriptor: Int32 = STDERR_FILENO

    static func arm(descriptor: Int32) {
        self.descriptor = descriptor
        signal(SIGINT) { _ in
            var settings = termios()
            if tcgetattr(STDIN_FILENO, &settings) == 0 {
                settings.c_lflag |= tcflag_t(ECHO)
                tcsetattr(STDIN_FILENO, TCSANOW, &settings)
            }
            let newline: [UInt8] = [10]
            _ = newline.withUnsafeBufferPointer { write(PromptInterrupt.descriptor, $0.baseAddress, 1) }
            let message = Array("error: cancelled\n".utf8)
            _ = message.withUnsafeBufferPointer { write(STDERR_FILENO, $0.baseAddress, $0.count) }
            _exit(ExitCodes.cancelled)
        }
    }

    static func disarm() {
        signal(SIGINT, SIG_DFL)
    }
}

/// Reads standard input on one background thread and hands out lines. Every prompt takes from it, so a
/// question that is abandoned (an offer during polling) never leaves a blocked read behind to steal the
/// next answer.
actor LineReader {
    static let shared = LineReader()

    private var buffered: [String] = []
    private var waiters: [CheckedContinuation<String?, Never>] = []
    private var ended = false
    private var started = false

    private func startIfNeeded() {
        guard !started else { return }
        started = true
        let thread = Thread {
            // One hand-off at a time, so lines arrive in the order they were typed.
            let delivered = DispatchSemaphore(value: 0)
            while let line = Swift.readLine(strippingNewline: true) {
                Task {
                    await LineReader.shared.deliver(line)
                    delivered.signal()
                }
                delivered.wait()
            }
            Task { await LineReader.shared.finish() }
        }
        thread.start()
    }

    func next() async -> String? {
        startIfNeeded()
        if !buffered.isEmpty { return buffered.removeFirst() }
        if ended { return nil }
        return await withCheckedContinuation { waiters.append($0) }
    }

    /// A line typed since the last call, without waiting.
    func poll() -> String? {
        startIfNeeded()
        return buffered.isEmpty ? nil : buffered.removeFirst()
    }

    private func deliver(_ line: String) {
        if waiters.isEmpty { buffered.append(line) } else { waiters.removeFirst().resume(returning: line) }
    }

    private func finish() {
        ended = true
        for waiter in waiters { waiter.resume(returning: nil) }
        waiters = []
    }
}
