import ChildProcesses
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Linux: there the default storage is files under XDG_DATA_HOME, which each test run points at a folder of
// its own. On Apple platforms it is the Keychain, which a test cannot give a folder of its own.
#if os(Linux)
/// The SDK's defaults across a relaunch, with two processes of a real app (`Examples/HaapiCommandLineApp`,
/// which sets no key storage): the first signs in, the second refreshes the DPoP-bound token and calls
/// UserInfo with it. Each run gets its own data folder (`XDG_DATA_HOME`), where the default storage lives.
@Suite("Relaunch with the SDK's defaults, two processes", .timeLimit(.minutes(3)))
struct TwoProcessRelaunchTests {
    @Test("a second process refreshes the bound token with the persisted key; without the key it cannot")
    func secondProcessRefreshes() async throws {
        let server = try await SdkTestServer.shared.get()
        let data = try temporaryFolder()
        let common = ["--issuer", server.base.absoluteString, "--client-id", "haapi-demo"]

        let login = try await ExampleApp.run(
            ["login"] + common + ["--username", "demouser"], stdin: "Password1\n", dataHome: data)
        #expect(login.status == 0, "\(login.stderr)")
        #expect(login.stdout.contains("signed in: demouser, token type DPoP"), "\(login.stdout)")
        #expect(!login.stdout.contains("Password1") && !login.stderr.contains("Password1"))

        // The key is where the platform keeps an app's data: a 0700 folder of 0600 files.
        let keys = data.appendingPathComponent("swift-haapi/dpop-keys")
        #expect(try mode(of: keys) == 0o700)
        let files = try FileManager.default.contentsOfDirectory(atPath: keys.path)
        #expect(files.count == 2, "the sealing key and one sealed DPoP key: \(files)")
        for file in files { #expect(try mode(of: keys.appendingPathComponent(file)) == 0o600) }

        let refresh = try await ExampleApp.run(["refresh"] + common, dataHome: data)
        #expect(refresh.status == 0, "\(refresh.stderr)")
        #expect(refresh.stdout.contains("refreshed: demouser"), "\(refresh.stdout)")

        // The same refresh token (rotated by the refresh above, so the one kept now) in a folder without
        // the device key: the binding holds, and the refresh is refused.
        let keyless = try temporaryFolder()
        try FileManager.default.createDirectory(
            at: keyless.appendingPathComponent("swift-haapi"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: data.appendingPathComponent("swift-haapi/example-app-tokens"),
            to: keyless.appendingPathComponent("swift-haapi/example-app-tokens"))
        let refused = try await ExampleApp.run(["refresh"] + common, dataHome: keyless)
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("token endpoint: invalid"), "\(refused.stderr)")

        // And the original folder still works: the refused attempt used nothing of it.
        let again = try await ExampleApp.run(["refresh"] + common, dataHome: data)
        #expect(again.status == 0 && again.stdout.contains("refreshed: demouser"), "\(again.stderr)")
        let logout = try await ExampleApp.run(["logout"] + common, dataHome: data)
        #expect(logout.status == 0 && logout.stdout.contains("signed out"), "\(logout.stderr)")
        let afterLogout = try await ExampleApp.run(["refresh"] + common, dataHome: data)
        #expect(afterLogout.status != 0 && afterLogout.stderr.contains("not signed in"), "\(afterLogout.stderr)")
    }

    private func temporaryFolder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("relaunch-" + UUID().uuidString)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    private func mode(of url: URL) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        return (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }
}

/// Runs the example app built next to the test bundle.
enum ExampleApp {
    struct Result {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    static let executable: URL? = {
        var directory = Bundle.main.bundleURL
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("haapi-example-app")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory.deleteLastPathComponent()
        }
        return nil
    }()

    /// Runs to the end on a thread of its own (never blocking a cooperative thread), with `dataHome` as the
    /// user's data folder.
    static func run(_ arguments: [String], stdin: String = "", dataHome: URL) async throws -> Result {
        guard let executable else { throw TestFailure("haapi-example-app was not built next to the tests") }
        return try await withCheckedThrowingContinuation { continuation in
            Thread {
                continuation.resume(
                    with: Swift.Result {
                        var environment = ProcessInfo.processInfo.environment
                        environment["XDG_DATA_HOME"] = dataHome.path
                        let output = Pipe()
                        let errors = Pipe()
                        let input = Pipe()
                        let process = ChildProcess(
                            executable, arguments: arguments, environment: environment, input: .pipe(input),
                            output: .pipe(output), error: .pipe(errors))
                        try process.run()
                        input.fileHandleForWriting.write(Data(stdin.utf8))
                        try input.fileHandleForWriting.close()
                        let out = output.fileHandleForReading.readDataToEndOfFile()
                        let err = errors.fileHandleForReading.readDataToEndOfFile()
                        process.waitUntilExit()
                        return Result(
                            status: process.terminationStatus, stdout: String(decoding: out, as: UTF8.self),
                            stderr: String(decoding: err, as: UTF8.self))
                    })
            }.start()
        }
    }
}
#endif
