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
    /// HAAPI requests and responses.
    case flow = "HAAPI_DRIVER_FLOW"
    /// Keys and stored values.
    case storage = "HAAPI_DRIVER_STORAGE"
    /// The transport.
    case http = "HAAPI_DRIVER_HTTP"
    /// Client attestation.
    case attestation = "HAAPI_DRIVER_ATTESTATION"
}

/// Log tags of the SDK: the flow, the OAuth calls.
public enum SdkFollowUpTag: String, FollowUpTag, CaseIterable {
    /// The flow's steps.
    case flow = "HAAPI_SDK_FLOW"
    /// The SDK's requests.
    case http = "HAAPI_SDK_HTTP"
    /// Reading responses into models.
    case mapping = "HAAPI_SDK_MAPPING"
    /// Code redemption, refresh, revocation.
    case oauth = "HAAPI_SDK_OAUTH"
}

/// The level of a log line.
public enum LogType: String, Sendable, CaseIterable {
    /// Details for developers; off in release builds by default.
    case debug = "DEBUG"
    /// Normal events.
    case info = "INFO"
    /// Something unexpected the SDK worked around.
    case warning = "WARNING"
    /// A failure.
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
