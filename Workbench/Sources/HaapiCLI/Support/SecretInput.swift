import ArgumentParser
import Foundation

/// Where a secret comes from, so it never has to be on the command line (where `ps` and shell history see
/// it): the option itself, a file named by the `…-file` option (`-` for standard input), or an environment
/// variable, in that order.
enum SecretInput {
    static func resolve(value: String?, file: String?, environment name: String, option: String) throws -> String? {
        if value != nil, file != nil { throw ValidationError("give \(option) or \(option)-file, not both") }
        if let value { return value }
        if let file {
            let data = try StandardStreams.read(file, what: option + "-file")
            // One trailing newline (from `echo` or an editor) is not part of the secret.
            var text = String(decoding: data, as: UTF8.self)
            if text.hasSuffix("\r\n") { text.removeLast(2) } else if text.hasSuffix("\n") { text.removeLast() }
            guard !text.isEmpty else { throw ValidationError("\(option)-file \(file) is empty") }
            return text
        }
        if let value = ProcessInfo.processInfo.environment[name], !value.isEmpty { return value }
        return nil
    }
}
