import Foundation
@_spi(Tooling) import HaapiDriver
import HaapiTestSupport
import Testing

/// Captures what the logger writes.
final class RecordingSink: LogSink, @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [(type: LogType, tag: String, message: String)] = []
    /// The logger is process-wide and other suites log while these tests run: only lines logged on the
    /// thread that made the sink (the synchronous test's own) are kept.
    private let owner = pthread_self()

    func writeLog(logType: LogType, followUpTag: any FollowUpTag, message: String, file: String, line: Int) {
        guard pthread_equal(pthread_self(), owner) != 0 else { return }
        lock.lock()
        entries.append((logType, followUpTag.rawValue, message))
        lock.unlock()
    }

    var lines: [(type: LogType, tag: String, message: String)] {
        lock.lock()
        defer { lock.unlock() }
        return entries
    }
}

/// The logger's configuration is process-wide, so these tests run one at a time and restore the defaults.
@Suite("HaapiLogger", .serialized)
struct HaapiLoggerTests {
    static func withFreshLogger(_ body: (RecordingSink) throws -> Void) rethrows {
        HaapiLogger.removeAppendedLogSinks()
        HaapiLogger.followUpTags = []
        HaapiLogger.isSensitiveValueMasked = true
        HaapiLogger.isDebugEnabled = true
        HaapiLogger.isInfoEnabled = true
        HaapiLogger.isWarningEnabled = true
        HaapiLogger.isErrorEnabled = true
        let sink = RecordingSink()
        HaapiLogger.appendLogSink(sink)
        defer {
            HaapiLogger.removeAppendedLogSinks()
            HaapiLogger.followUpTags = []
            HaapiLogger.isSensitiveValueMasked = true
        }
        try body(sink)
    }

    /// Keeps every line, from any thread (for the asynchronous flow below), with the file it came from.
    final class FileRecordingSink: LogSink, @unchecked Sendable {
        private let lock = NSLock()
        private var entries: [(tag: String, file: String, message: String)] = []

        func writeLog(logType: LogType, followUpTag: any FollowUpTag, message: String, file: String, line: Int) {
            lock.lock()
            entries.append((followUpTag.rawValue, file, message))
            lock.unlock()
        }

        var lines: [(tag: String, file: String, message: String)] {
            lock.lock()
            defer { lock.unlock() }
            return entries
        }
    }

    @Test("HAAPI_DRIVER_STORAGE: the DPoP key's store, read and delete, and a storage that fails, each logged")
    func storageTag() throws {
        try Self.withFreshLogger { sink in
            HaapiLogger.followUpTags = [DriverFollowUpTag.storage]
            let store = DeviceKeyStore(storage: InMemoryStorage())
            _ = try store.loadOrCreate(name: "logged")
            _ = try store.load(name: "logged")
            try store.delete(name: "logged")
            let broken = DeviceKeyStore(storage: FailingStorage())
            #expect(throws: HaapiError.self) { _ = try broken.loadOrCreate(name: "x") }
            let storage = sink.lines.filter { $0.tag == "HAAPI_DRIVER_STORAGE" }.map(\.message)
            #expect(storage.contains { $0.hasPrefix("stored a new p256 DPoP key") }, "\(storage)")
            #expect(
                storage.contains { $0.hasPrefix("read the DPoP key") } && storage.contains { $0.hasPrefix("deleted") })
            #expect(storage.contains { $0.hasPrefix("cannot read the DPoP key") }, "\(storage)")
        }
    }

    struct FailingStorage: Storage {
        func read(key: String) throws(StorageError) -> Data? { throw .unavailable("disk gone") }
        func write(_ data: Data, key: String) throws(StorageError) { throw .unavailable("disk gone") }
        func delete(key: String) throws(StorageError) { throw .unavailable("disk gone") }
    }

    @Test("HAAPI_SDK_HTTP: the SDK's own requests (HAAPI steps, the token request), addresses masked")
    func sdkHTTPTag() async throws {
        HaapiLogger.removeAppendedLogSinks()
        HaapiLogger.followUpTags = [SdkFollowUpTag.http]
        HaapiLogger.isDebugEnabled = true
        let sink = FileRecordingSink()
        HaapiLogger.appendLogSink(sink)
        defer {
            HaapiLogger.removeAppendedLogSinks()
            HaapiLogger.followUpTags = []
        }
        let done = #"{"type":"oauth-authorization-response","properties":{"code":"c"}}"#
        let (accessor, _) = try await InternalTestUtility.accessor(steps: [done])
        _ = await accessor.haapiManager.start()
        _ = await accessor.oAuthTokenManager.fetchAccessToken(with: "c", dpop: accessor.haapiManager.dpop)
        await accessor.haapiManager.close()
        let http = sink.lines.filter { $0.tag == "HAAPI_SDK_HTTP" && $0.file.hasPrefix("HaapiSdk/") }
        #expect(http.contains { $0.message.hasPrefix("GET *****") }, "\(http)")
        #expect(http.contains { $0.message.contains("(grant authorization_code)") }, "\(http)")
        #expect(!http.contains { $0.message.contains("login.test.example") })
    }

    @Test("the tags carry the seed's HAAPI_* names")
    func tagNames() {
        #expect(
            DriverFollowUpTag.allCases.map(\.rawValue) == [
                "HAAPI_DRIVER_FLOW", "HAAPI_DRIVER_STORAGE", "HAAPI_DRIVER_HTTP", "HAAPI_DRIVER_ATTESTATION",
            ])
        #expect(
            SdkFollowUpTag.allCases.map(\.rawValue) == [
                "HAAPI_SDK_FLOW", "HAAPI_SDK_HTTP", "HAAPI_SDK_MAPPING", "HAAPI_SDK_OAUTH",
            ])
    }

    @Test("defaults: nothing is logged until tags are chosen; debug is on in DEBUG builds; secrets are masked")
    func defaults() {
        #if DEBUG
        #expect(HaapiLogger.isDebugEnabled)
        #endif
        #expect(HaapiLogger.isInfoEnabled && HaapiLogger.isWarningEnabled && HaapiLogger.isErrorEnabled)
        #expect(HaapiLogger.isSensitiveValueMasked)
        Self.withFreshLogger { sink in
            HaapiLogger.info(DriverFollowUpTag.http, "not shown")
            #expect(sink.lines.isEmpty)
        }
    }

    @Test("a line that is not written is not made: its message is evaluated only for a followed tag and level")
    func messagesAreLazy() {
        Self.withFreshLogger { sink in
            let made = LockedValue(0)
            func message() -> String {
                made.withLock { $0 += 1 }
                return "made"
            }
            HaapiLogger.followUpTags = [SdkFollowUpTag.http]
            HaapiLogger.debug(SdkFollowUpTag.flow, "\(message())")  // tag not followed
            HaapiLogger.isDebugEnabled = false
            HaapiLogger.debug(SdkFollowUpTag.http, "\(message())")  // level off
            #expect(made.withLock { $0 } == 0)
            HaapiLogger.isDebugEnabled = true
            HaapiLogger.debug(SdkFollowUpTag.http, "\(message())")
            #expect(made.withLock { $0 } == 1)
            #expect(sink.lines.map(\.message) == ["made"])
        }
    }

    @Test("only the chosen tags and enabled levels reach the sinks")
    func filtering() {
        Self.withFreshLogger { sink in
            HaapiLogger.followUpTags = SdkFollowUpTag.allCases
            HaapiLogger.info(DriverFollowUpTag.http, "driver line")
            HaapiLogger.info(SdkFollowUpTag.oauth, "sdk line")
            HaapiLogger.isDebugEnabled = false
            HaapiLogger.debug(SdkFollowUpTag.flow, "debug line")
            HaapiLogger.error(SdkFollowUpTag.flow, "error line")
            #expect(sink.lines.map(\.message) == ["sdk line", "error line"])
            #expect(sink.lines.map(\.tag) == ["HAAPI_SDK_OAUTH", "HAAPI_SDK_FLOW"])
        }
    }

    @Test("sensitive values are masked by default; unmasked lines come with the UNSECURED warnings")
    func masking() {
        Self.withFreshLogger { sink in
            HaapiLogger.followUpTags = DriverFollowUpTag.allCases
            let token = "eyJ-secret-token"
            HaapiLogger.debug(
                DriverFollowUpTag.http, "Requesting CAT with \(sensitive: token) from \("https://idp/cat")")
            #expect(sink.lines.map(\.message) == ["Requesting CAT with ***** from https://idp/cat"])
            #expect(!sink.lines.contains { $0.message.contains(token) })

            HaapiLogger.isSensitiveValueMasked = false
            HaapiLogger.debug(DriverFollowUpTag.http, "token \(sensitive: token)")
            let last = sink.lines.suffix(3)
            #expect(last.map(\.tag) == ["UNSECURED", "UNSECURED", "HAAPI_DRIVER_HTTP"])
            #expect(last.first?.message.contains("SENSITIVE VALUE IS UNMASKED") == true)
            #expect(last.last?.message == "token \(token)")
            HaapiLogger.debug(DriverFollowUpTag.http, "no secret here")
            #expect(sink.lines.last?.message == "no secret here" && sink.lines.count == 5)
        }
    }
}
