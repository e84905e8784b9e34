import Foundation

/// What a request logger writes.
public enum RequestLoggingType: String, Sendable, CaseIterable {
    /// Only the response time. (The seed's spelling.)
    // swift-format-ignore: AlwaysUseLowerCamelCase
    case resp_time
    /// Headers, request body, response body and response time.
    case data
    case none
}

/// Logs Authentication Hub network calls.
public protocol AuthHubRequestLogger: AnyObject, Sendable {
    func enableLog(enable: Bool)
    func setLoggingType(type: RequestLoggingType)
    func logRequestData(responseTime: Int64, endPoint: AuthHubEndpoint, respDict: [String: AnyObject]?)
}

/// The default logger: disabled until `enableLog(true)`; writes to the console, or appends to the named file
/// (created 0600). Secrets are masked: authorization headers, flow states, passwords, OTPs, nonces,
/// tokens, encrypted fields and credentials.
public final class AHRequestLogger: AuthHubRequestLogger, @unchecked Sendable {
    private let lock = NSLock()
    private var enabled = false
    private var type = RequestLoggingType.data
    private let fileURL: URL?

    /// - Parameter fileName: a file to append to; `nil` logs to standard error.
    public init(fileName: String?) {
        fileURL = fileName.map { URL(fileURLWithPath: $0) }
    }

    public func enableLog(enable: Bool) { lock.withLock { enabled = enable } }
    public func setLoggingType(type: RequestLoggingType) { lock.withLock { self.type = type } }

    static let secretNames: Set<String> = [
        "authorization", "x-flow-state", "flowstate", "password", "newpassword", "currentpassword", "otp",
        "clientnonce", "servernonce",
        "access_token", "id_token", "refresh_token", "session_token", "token", "assertion", "credential", "signature",
        "iaauthdata", "encrypteddata",
    ]

    /// A value safe to log: secrets become "*****".
    static func masked(_ value: Any, name: String? = nil) -> String {
        if let name, secretNames.contains(name.lowercased()) { return "\"*****\"" }
        switch value {
        case let dictionary as [String: Any]:
            return "{"
                + dictionary.keys.sorted().map { "\"\($0)\": " + masked(dictionary[$0] ?? "", name: $0) }.joined(
                    separator: ", ") + "}"
        case let array as [Any]:
            return "[" + array.map { masked($0) }.joined(separator: ", ") + "]"
        case let text as String:
            return "\"\(text)\""
        default:
            return "\(value)"
        }
    }

    public func logRequestData(responseTime: Int64, endPoint: AuthHubEndpoint, respDict: [String: AnyObject]?) {
        let (enabled, type) = lock.withLock { (self.enabled, self.type) }
        guard enabled, type != .none else { return }
        var line = "[AuthHub] \(endPoint.path.method) \(endPoint.path.rawValue) \(responseTime) ms"
        if type == .data {
            line +=
                " headers=" + Self.masked(endPoint.headers) + " request=" + Self.masked(endPoint.payload)
                + " response=" + Self.masked((respDict ?? [:]) as [String: Any])
        }
        write(line + "\n")
    }

    private func write(_ line: String) {
        guard let fileURL else {
            FileHandle.standardError.write(Data(line.utf8))
            return
        }
        lock.withLock {
            if !FileManager.default.fileExists(atPath: fileURL.path) {
                _ = FileManager.default.createFile(
                    atPath: fileURL.path, contents: nil, attributes: [.posixPermissions: 0o600])
            }
            guard let handle = try? FileHandle(forWritingTo: fileURL) else { return }
            defer { try? handle.close() }
            _ = try? handle.seekToEnd()
            try? handle.write(contentsOf: Data(line.utf8))
        }
    }
}
