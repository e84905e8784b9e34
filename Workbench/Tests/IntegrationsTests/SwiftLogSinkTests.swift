import Foundation
@_spi(Tooling) import HaapiDriver
import HaapiSwiftLog
import Logging
import Testing

/// `SwiftLogSink` (the HaapiSwiftLog product of swift-haapi-integrations): HAAPI log lines through swift-log.
@Suite("swift-log sink", .serialized)
struct SwiftLogSinkTests {
    @Test("the swift-log sink forwards level, tag and message")
    func swiftLog() {
        let recorder = SwiftLogRecorder()
        let logger = Logger(label: "test") { _ in recorder }
        withFreshLogger {
            HaapiLogger.followUpTags = [DriverFollowUpTag.storage]
            HaapiLogger.appendLogSink(SwiftLogSink(logger: logger))
            HaapiLogger.warning(DriverFollowUpTag.storage, "disk \(sensitive: "key-material") full")
        }
        #expect(recorder.messages == ["warning [HAAPI_DRIVER_STORAGE] disk ***** full"])
    }
}

/// The logger's global settings, fresh for one test and restored after it.
func withFreshLogger(_ body: () -> Void) {
    HaapiLogger.removeAppendedLogSinks()
    HaapiLogger.followUpTags = []
    HaapiLogger.isSensitiveValueMasked = true
    HaapiLogger.isWarningEnabled = true
    defer {
        HaapiLogger.removeAppendedLogSinks()
        HaapiLogger.followUpTags = []
    }
    body()
}

final class SwiftLogRecorder: LogHandler, @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [String] = []
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        lock.lock()
        recorded.append("\(event.level) \(event.message)")
        lock.unlock()
    }

    var messages: [String] {
        lock.lock()
        defer { lock.unlock() }
        return recorded
    }
}
