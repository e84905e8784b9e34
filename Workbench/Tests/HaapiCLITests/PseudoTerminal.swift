import ChildProcesses
import Foundation

/// Runs `haapi` on a pseudo-terminal through util-linux `script`, types into it and reads what it draws,
/// as a person at a terminal would: the program sees a TTY (hidden password entry, colours, spinner),
/// and a typed Ctrl-C becomes SIGINT through the terminal's line discipline.
final class PseudoTerminal {
    static var isAvailable: Bool {
        #if os(Linux)
        FileManager.default.isExecutableFile(atPath: "/usr/bin/script") && CLIRunner.executable != nil
        #else
        false  // BSD script takes other flags
        #endif
    }

    let process: ChildProcess
    private let input = Pipe()
    private let output: URL

    /// `before`/`after`: shell code run before haapi starts (e.g. `stty cols 40; `) and once it has exited
    /// (e.g. to report the terminal's state).
    init(_ arguments: [String], before: String = "", after: String = "") throws {
        guard let executable = CLIRunner.executable else { throw CocoaError(.fileNoSuchFile) }
        output = try CLIRunner.temporaryDirectory().appendingPathComponent("tty.txt")
        guard FileManager.default.createFile(atPath: output.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown)
        }
        // The typed Ctrl-C goes to the whole foreground group, the wrapping shell included. dash (CI's /bin/sh)
        // dies of it unless it traps SIGINT, and "[exit N]" would never be printed. A trap with a handler is not
        // inherited across exec, so haapi still starts with the default disposition.
        let command =
            "trap : INT; " + before + ([executable.path] + arguments).map { "'\($0)'" }.joined(separator: " ")
            + "; echo \"[exit $?]\"; " + after
        var environment = ProcessInfo.processInfo.environment
        environment["TERM"] = "xterm"
        environment["SHELL"] = "/bin/sh"  // the same shell wherever the tests run
        environment.removeValue(forKey: "NO_COLOR")
        process = ChildProcess(
            URL(fileURLWithPath: "/usr/bin/script"), arguments: ["-qfec", command, "/dev/null"],
            environment: environment, input: .pipe(input), output: .file(try FileHandle(forWritingTo: output)),
            error: .null)
        try process.run()
    }

    deinit {
        process.terminate()
    }

    /// Everything drawn so far, with colour codes removed.
    var screen: String {
        let raw = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
        return raw.replacingOccurrences(of: "\u{1B}\\[[0-9;]*[A-Za-z]", with: "", options: .regularExpression)
    }

    func type(_ text: String) {
        input.fileHandleForWriting.write(Data(text.utf8))
    }

    /// Waits until `text` has been drawn `occurrences` times (a prompt that comes back in a second flow).
    func waitFor(_ text: String, occurrences: Int, timeout: TimeInterval = 60) async throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if screen.components(separatedBy: text).count - 1 >= occurrences { return }
            try await Task.sleep(nanoseconds: 100_000_000)
        }
        throw PseudoTerminalTimeout(pattern: "\(text) ×\(occurrences)", screen: String(screen.suffix(1500)))
    }

    /// Waits until the screen matches `pattern` (a regular expression); returns the first capture group, or the match.
    @discardableResult
    func waitFor(_ pattern: String, timeout: TimeInterval = 60) async throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        let expression = try NSRegularExpression(pattern: pattern)
        while Date() < deadline {
            let text = screen
            if let match = expression.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) {
                let range = match.numberOfRanges > 1 ? match.range(at: 1) : match.range
                if let swiftRange = Range(range, in: text) { return String(text[swiftRange]) }
            }
            try await Task.sleep(nanoseconds: 100_000_000)
        }
        throw PseudoTerminalTimeout(pattern: pattern, screen: String(screen.suffix(1500)))
    }
}

struct PseudoTerminalTimeout: Error, CustomStringConvertible {
    let pattern: String
    let screen: String
    var description: String { "nothing matched /\(pattern)/; the screen ends with:\n\(screen)" }
}
