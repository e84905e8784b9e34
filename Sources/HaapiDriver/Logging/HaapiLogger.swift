import Foundation

/// The SDK's logger. Nothing is written until `followUpTags` names the tags to show:
///
/// ```swift
/// HaapiLogger.followUpTags = DriverFollowUpTag.allCases + SdkFollowUpTag.allCases
/// HaapiLogger.appendLogSink(MySink())
/// ```
///
/// Levels: debug is on in DEBUG builds only; info, warning and error are on. Secrets are masked by
/// default; turning `isSensitiveValueMasked` off makes every line that shows one come with `[UNSECURED]`
/// warnings, so an unmasked log cannot go unnoticed.
public enum HaapiLogger {
    static let mask = MaskedText.hidden

    // Process-wide because the seed's logger is a set of static properties. Unchecked: every member is read
    // and written under `lock`, and the sinks it holds need not be Sendable (see `LogSink`), which the
    // package's `LockedValue` requires of its value; they are called outside the lock.
    private final class State: @unchecked Sendable {
        let lock = NSLock()
        var followUpTags: [any FollowUpTag] = []
        #if DEBUG
        var isDebugEnabled = true
        #else
        var isDebugEnabled = false
        #endif
        var isInfoEnabled = true
        var isWarningEnabled = true
        var isErrorEnabled = true
        var isSensitiveValueMasked = true
        var sinks: [any LogSink] = [ConsoleLogSink()]

        func withLock<T>(_ body: (State) -> T) -> T {
            lock.lock()
            defer { lock.unlock() }
            return body(self)
        }
    }

    private static let state = State()

    /// The tags to log; empty (the default) logs nothing.
    public static var followUpTags: [any FollowUpTag] {
        get { state.withLock { $0.followUpTags } }
        set { state.withLock { $0.followUpTags = newValue } }
    }

    /// Whether debug lines are written (on in DEBUG builds only, by default).
    public static var isDebugEnabled: Bool {
        get { state.withLock { $0.isDebugEnabled } }
        set { state.withLock { $0.isDebugEnabled = newValue } }
    }

    /// Whether info lines are written (on by default).
    public static var isInfoEnabled: Bool {
        get { state.withLock { $0.isInfoEnabled } }
        set { state.withLock { $0.isInfoEnabled = newValue } }
    }

    /// Whether warnings are written (on by default).
    public static var isWarningEnabled: Bool {
        get { state.withLock { $0.isWarningEnabled } }
        set { state.withLock { $0.isWarningEnabled = newValue } }
    }

    /// Whether errors are written (on by default).
    public static var isErrorEnabled: Bool {
        get { state.withLock { $0.isErrorEnabled } }
        set { state.withLock { $0.isErrorEnabled = newValue } }
    }

    /// True by default. Set it to false only while debugging, never in a release build.
    public static var isSensitiveValueMasked: Bool {
        get { state.withLock { $0.isSensitiveValueMasked } }
        set { state.withLock { $0.isSensitiveValueMasked = newValue } }
    }

    /// Adds a destination; the console sink (standard error) is always there. The sink is handed over: the
    /// logger calls it from any thread (see `LogSink`).
    public static func appendLogSink(_ sink: sending any LogSink) {
        state.withLock { $0.sinks.append(sink) }
    }

    /// Removes every sink but the console (for tests and for apps that reconfigure logging).
    public static func removeAppendedLogSinks() {
        state.withLock { $0.sinks = [ConsoleLogSink()] }
    }

    /// Logs a debug line under `tag`, if the tag is followed and debug lines are on.
    public static func debug(
        _ tag: any FollowUpTag, _ message: @autoclosure () -> LogMessage, file: String = #fileID, line: Int = #line
    ) {
        log(.debug, tag, message(), file: file, line: line)
    }

    /// Logs an info line under `tag`, if the tag is followed and info lines are on.
    public static func info(
        _ tag: any FollowUpTag, _ message: @autoclosure () -> LogMessage, file: String = #fileID, line: Int = #line
    ) {
        log(.info, tag, message(), file: file, line: line)
    }

    /// Logs a warning under `tag`, if the tag is followed and warnings are on.
    public static func warning(
        _ tag: any FollowUpTag, _ message: @autoclosure () -> LogMessage, file: String = #fileID, line: Int = #line
    ) {
        log(.warning, tag, message(), file: file, line: line)
    }

    /// Logs an error under `tag`, if the tag is followed and errors are on.
    public static func error(
        _ tag: any FollowUpTag, _ message: @autoclosure () -> LogMessage, file: String = #fileID, line: Int = #line
    ) {
        log(.error, tag, message(), file: file, line: line)
    }

    /// Logs a line of any level under `tag`, if the tag is followed and the level is on.
    ///
    /// The message is made only when the line is written: a request's URL in a debug line costs nothing while
    /// debug lines are off (as they are by default, on every request of a flow).
    public static func log(
        _ type: LogType, _ tag: any FollowUpTag, _ message: @autoclosure () -> LogMessage, file: String = #fileID,
        line: Int = #line
    ) {
        let written = state.withLock { state -> (sinks: [any LogSink], masked: Bool)? in
            let levelOn =
                switch type {
                case .debug: state.isDebugEnabled
                case .info: state.isInfoEnabled
                case .warning: state.isWarningEnabled
                case .error: state.isErrorEnabled
                }
            guard levelOn, state.followUpTags.contains(where: { $0.rawValue == tag.rawValue }) else { return nil }
            return (state.sinks, state.isSensitiveValueMasked)
        }
        guard let (sinks, masked) = written else { return }
        let message = message()
        let text = message.rendered(masked: masked)
        for sink in sinks {
            if !masked, message.containsSensitiveValue {
                sink.writeLog(
                    logType: .warning, followUpTag: UnsecuredTag(),
                    message: "********** SENSITIVE VALUE IS UNMASKED **********", file: file, line: line)
                sink.writeLog(
                    logType: .warning, followUpTag: UnsecuredTag(),
                    message:
                        "********** HaapiLogger.isSensitiveValueMasked must be set to true in `release` mode. **********",
                    file: file, line: line)
            }
            sink.writeLog(logType: type, followUpTag: tag, message: text, file: file, line: line)
        }
    }

    /// The tag of the warnings that accompany unmasked secrets.
    public struct UnsecuredTag: FollowUpTag {
        public var rawValue: String { "UNSECURED" }
    }
}

/// Writes `[TAG] [LEVEL] File.line : message` to standard error.
public struct ConsoleLogSink: LogSink {
    /// A sink that writes to standard error.
    public init() {}

    public func writeLog(logType: LogType, followUpTag: any FollowUpTag, message: String, file: String, line: Int) {
        let fileName = file.split(separator: "/").last.map { String($0.split(separator: ".").first ?? $0) } ?? file
        let prefix =
            followUpTag is HaapiLogger.UnsecuredTag
            ? "[UNSECURED]" : "[\(followUpTag.rawValue)] [\(logType.rawValue)] \(fileName).\(line) :"
        FileHandle.standardError.write(Data("\(prefix) \(message)\n".utf8))
    }
}
