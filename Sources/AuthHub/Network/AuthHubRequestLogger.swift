import Foundation
@_spi(Tooling) import HaapiDriver
@_spi(Tooling) import HaapiModel

/// What a request logger writes.
public enum RequestLoggingType: String, Sendable, CaseIterable {
    /// Only the response time. (The seed's spelling.)
    // swift-format-ignore: AlwaysUseLowerCamelCase
    case resp_time
    /// Headers, request body, response body and response time.
    case data
    /// Nothing.
    case none
}

/// Logs Authentication Hub network calls.
public protocol AuthHubRequestLogger: AnyObject, Sendable {
    /// Turns logging on or off.
    func enableLog(enable: Bool)
    /// Chooses what is logged: the response time only, or the data too.
    func setLoggingType(type: RequestLoggingType)
    /// Logs one call: its endpoint (headers and payload), the response body and the time it took in milliseconds.
    func logRequestData(responseTime: Int64, endPoint: AuthHubEndpoint, respDict: [String: AnyObject]?)
}

/// The default logger: disabled until `enableLog(true)`; writes to the console, or appends to the named file
/// (created 0600). Secrets are masked: authorization headers, flow states, passwords, OTPs, nonces,
/// tokens, encrypted fields and credentials.
public final class AHRequestLogger: AuthHubRequestLogger, Sendable {
    private struct Settings: Sendable {
        var enabled = false
        var type = RequestLoggingType.data
    }
    private let settings = LockedValue(Settings())
    /// Held while appending, so lines from concurrent calls do not interleave.
    private let fileLock = LockedValue(())
    private let fileURL: URL?

    /// - Parameter fileName: a file to append to; `nil` logs to standard error.
    public init(fileName: String?) {
        fileURL = fileName.map { URL(fileURLWithPath: $0) }
    }

    public func enableLog(enable: Bool) { settings.withLock { $0.enabled = enable } }
    public func setLoggingType(type: RequestLoggingType) { settings.withLock { $0.type = type } }

    /// A value safe to log: what `MaskedText` calls a secret by its name becomes "*****" (the SDK's mask);
    /// object members in sorted order.
    static func masked(_ value: JSONValue, name: String? = nil) -> String {
        if let name, MaskedText.isSecret(name: name) { return "\"\(MaskedText.hidden)\"" }
        switch value {
        case .object(let object):
            let members = object.members.sorted { $0.key < $1.key }
            return "{" + members.map { "\"\($0.key)\": " + masked($0.value, name: $0.key) }.joined(separator: ", ")
                + "}"
        case .array(let items):
            return "[" + items.map { masked($0) }.joined(separator: ", ") + "]"
        case .string(let text):
            return "\"\(text)\""
        case .number(let number):
            return number.literal
        case .bool(let flag):
            return "\(flag)"
        case .null:
            return "null"
        }
    }

    public func logRequestData(responseTime: Int64, endPoint: AuthHubEndpoint, respDict: [String: AnyObject]?) {
        let current = settings.get()
        guard current.enabled, current.type != .none else { return }
        var line = "[AuthHub] \(endPoint.path.method) \(endPoint.path.rawValue) \(responseTime) ms"
        if current.type == .data {
            let headers = JSONObject(endPoint.headerStrings.map { ($0.key, JSONValue.string($0.value)) })
            let request = (try? endPoint.jsonPayload.get()) ?? [:]
            // A response a custom request object built itself may hold values without a JSON form; those
            // are logged as their type's name, never as their contents.
            let response = JSONObject(
                (respDict ?? [:]).map {
                    ($0.key, JSONValue(foundationValue: $0.value) ?? .string("<\(type(of: $0.value))>"))
                })
            line +=
                " headers=" + Self.masked(.object(headers)) + " request=" + Self.masked(.object(request))
                + " response=" + Self.masked(.object(response))
        }
        write(line + "\n")
    }

    private func write(_ line: String) {
        guard let fileURL else {
            FileHandle.standardError.write(Data(line.utf8))
            return
        }
        fileLock.withLock { _ in
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
