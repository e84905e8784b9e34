/// A category of log lines. Its raw value is the prefix printed in brackets, e.g. `[HAAPI_DRIVER_HTTP]`,
/// so logs can be filtered by `HAAPI`, `HAAPI_DRIVER` or one tag.
public protocol FollowUpTag: Sendable, CustomStringConvertible {
    var rawValue: String { get }
}

extension FollowUpTag {
    public var description: String { rawValue }
}

public enum DriverFollowUpTag: String, FollowUpTag, CaseIterable {
    case flow = "HAAPI_DRIVER_FLOW"
    case storage = "HAAPI_DRIVER_STORAGE"
    case http = "HAAPI_DRIVER_HTTP"
    case attestation = "HAAPI_DRIVER_ATTESTATION"
}

public enum SdkFollowUpTag: String, FollowUpTag, CaseIterable {
    case flow = "HAAPI_SDK_FLOW"
    case http = "HAAPI_SDK_HTTP"
    case mapping = "HAAPI_SDK_MAPPING"
    case oauth = "HAAPI_SDK_OAUTH"
}

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
    func writeLog(logType: LogType, followUpTag: any FollowUpTag, message: String, file: String, line: Int)
}
