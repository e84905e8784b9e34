import Foundation

/// Small helpers for a well-behaved command-line tool: results on stdout, diagnostics on stderr.
enum StandardStreams {
    static func printError(_ message: String) {
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }

    /// Reads a file, or standard input when the path is `-`.
    static func read(_ path: String) throws -> Data {
        if path == "-" { return FileHandle.standardInput.readDataToEndOfFile() }
        return try Data(contentsOf: URL(fileURLWithPath: path))
    }
}

/// The tool's exit codes: BSD sysexits where one fits. `haapi --help` and the README list them.
enum ExitCodes {
    static let failure: Int32 = 1
    /// A command line ArgumentParser refuses (its own code for validation errors).
    static let usage: Int32 = 64
    /// Input that cannot be used: a malformed file, JSON, key or token.
    static let dataError: Int32 = 65
    static let noInput: Int32 = 66
    /// The server cannot be reached, times out, or does not speak the protocol.
    static let unavailable: Int32 = 69
    /// The server refused: wrong credentials, an unknown client, a revoked or stolen token.
    static let refused: Int32 = 77
    /// The user cancelled (Ctrl-C, or the flow's cancel).
    static let cancelled: Int32 = 130

    static let helpText = """
        Exit codes: 0 success; 1 other failure; 64 usage error; 65 bad input data; 66 input not found; \
        69 server unavailable (cannot connect, timeout, not a HAAPI server); 77 refused by the server (credentials, \
        client, token); 130 cancelled.
        """
}
