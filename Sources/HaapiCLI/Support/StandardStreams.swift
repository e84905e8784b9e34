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

/// BSD sysexits: the conventional codes for "bad input data" and "cannot read input".
enum ExitCodes {
    static let dataError: Int32 = 65
    static let noInput: Int32 = 66
}
