import HaapiDriver
import Logging

/// Forwards HAAPI logs to swift-log, with the follow-up tag as metadata and in the message prefix.
public struct SwiftLogSink: LogSink {
    /// The swift-log logger lines go to.
    public let logger: Logger

    /// A sink that writes to `logger`.
    public init(logger: Logger = Logger(label: "haapi")) {
        self.logger = logger
    }

    public func writeLog(logType: LogType, followUpTag: any FollowUpTag, message: String, file: String, line: Int) {
        let level: Logger.Level =
            switch logType {
            case .debug: .debug
            case .info: .info
            case .warning: .warning
            case .error: .error
            }
        logger.log(
            level: level, "[\(followUpTag.rawValue)] \(message)",
            metadata: ["haapi.tag": .string(followUpTag.rawValue)],
            source: "haapi", file: file, function: "", line: UInt(line))
    }
}
