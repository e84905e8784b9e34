import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Small helpers for a well-behaved command-line tool: results on stdout, diagnostics on stderr.
enum StandardStreams {
    static func printError(_ message: String) {
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }

    /// Reads a file, or standard input when the path is `-`. A file that cannot be read is a `CLIFailure`
    /// with exit code 66 in every command, saying which input (`what`) and why in words.
    static func read(_ path: String, what: String = "file") throws(CLIFailure) -> Data {
        if path == "-" { return FileHandle.standardInput.readDataToEndOfFile() }
        do {
            return try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw CLIFailure(
                "cannot read \(what) \(path): \(unreadableReason(path, error))", code: ExitCodes.noInput,
                details: String(describing: error))
        }
    }

    /// Why `path` could not be read, in words: Foundation's own text on Linux is "The operation could not be
    /// completed", which says nothing.
    static func unreadableReason(_ path: String, _ error: any Error) -> String {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return "no such file" }
        if isDirectory.boolValue { return "it is a folder" }
        guard FileManager.default.isReadableFile(atPath: path) else { return "permission denied" }
        if let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError,
            underlying.domain == NSPOSIXErrorDomain
        {
            return String(cString: strerror(Int32(underlying.code)))
        }
        return "the file could not be read"
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
    /// A configuration file the dev server cannot run with (sysexits' EX_CONFIG).
    static let configuration: Int32 = 78
    /// The user cancelled (Ctrl-C, or the flow's cancel).
    static let cancelled: Int32 = 130

    static let helpText = """
        Exit codes: 0 success; 1 other failure; 64 usage error; 65 bad input data; 66 input not found; \
        69 server unavailable (cannot connect, timeout, not a HAAPI server); 77 refused by the server (credentials, \
        client, redirect URI, scope, token, a step's problem); 78 bad server configuration; 130 cancelled.
        """
}
