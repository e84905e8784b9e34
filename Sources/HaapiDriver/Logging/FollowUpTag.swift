/// A category of log lines. Its raw value is the prefix printed in brackets, e.g. `[HAAPI_DRIVER_HTTP]`,
/// so logs can be filtered by `HAAPI`, `HAAPI_DRIVER` or one tag.
public protocol FollowUpTag: Sendable, CustomStringConvertible {
    /// The tag's name as it appears in log lines.
    var rawValue: String { get }
}

extension FollowUpTag {
    public var description: String { rawValue }
}

/// Log tags of the driver: tokens, attestation, DPoP, networking.
public enum DriverFollowUpTag: String, FollowUpTag, CaseIterable {
    case flow = "HAAPI_DRIVER_FLOW"
    case storage = "HAAPI_DRIVER_STORAGE"
    case http = "HAAPI_DRIVER_HTTP"
    case attestation = "HAAPI_DRIVER_ATTESTATION"
}

/// Log tags of the SDK: the flow, the OAuth calls.
public enum SdkFollowUpTag: String, FollowUpTag, CaseIterable {
    case flow = "HAAPI_SDK_FLOW"
    case http = "HAAPI_SDK_HTTP"
    case mapping = "HAAPI_SDK_MAPPING"
    case oauth = "HAAPI_SDK_OAUTH"
}

/// The level of a log line.
public enum LogType: String, Sendable, CaseIterable {
    case debug = "DEBUG"
    case info = "INFO"
    case warning = "WARNING"
    case error = "ERROR"
}

/// Receives every log line that passes `HaapiLogger`'s filters.
///
/// Not `Sendable`, so a plain class can be a sink, as the seeds write one. `writeLog` is called on whatever
/// thread logs, possibly on several at once: a sink that keeps state protects it itself.
public protocol LogSink {
    /// Writes one line; called from any thread, with secrets already masked unless masking is off.
    func writeLog(logType: LogType, followUpTag: any FollowUpTag, message: String, file: String, line: Int)
}
