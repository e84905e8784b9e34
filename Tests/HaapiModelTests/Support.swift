import Foundation
@_spi(Tooling) import HaapiModel
import Testing

/// The vendor's published fixtures, read from `../shared/haapi-fixtures/` beside the checkout (or from
/// `HAAPI_FIXTURES_DIR`). They are never copied into this repository.
enum Fixtures {
    static let directory: URL = {
        if let override = ProcessInfo.processInfo.environment["HAAPI_FIXTURES_DIR"] {
            return URL(fileURLWithPath: override)
        }
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return repository.deletingLastPathComponent().appendingPathComponent("shared/haapi-fixtures/ios-haapi-demo-app")
    }()

    static var available: Bool { FileManager.default.fileExists(atPath: directory.path) }

    static let skipMessage: Comment =
        "HAAPI fixtures not found at ../shared/haapi-fixtures/ios-haapi-demo-app (set HAAPI_FIXTURES_DIR)"

    static func data(_ name: String) throws -> Data {
        try Data(contentsOf: directory.appendingPathComponent(name + ".json"))
    }

    static func decode(_ name: String) throws -> HaapiResponse {
        try HaapiDecoder().decode(data(name))
    }

    static func representation(_ name: String) throws -> any HaapiRepresentation {
        guard case .representation(let step) = try decode(name) else {
            Issue.record("\(name) decoded as a problem")
            throw CancellationError()
        }
        return step
    }
}

func decodeStep(_ json: String) throws -> any HaapiRepresentation {
    try HaapiDecoder().decodeRepresentation(Data(json.utf8))
}

func decodeProblem(_ json: String) throws -> any ProblemRepresentation {
    try HaapiDecoder().decodeProblem(Data(json.utf8))
}

/// Asserts that decoding fails at exactly `path` for the expected reason.
func expectDecodingError(
    _ json: String, path: String, reason: HaapiDecodingError.Reason? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    do {
        _ = try HaapiDecoder().decode(Data(json.utf8))
        Issue.record("decoding succeeded; expected an error at \(path)", sourceLocation: sourceLocation)
    } catch let error as HaapiDecodingError {
        #expect(error.path.description == path, sourceLocation: sourceLocation)
        if let reason { #expect(error.reason == reason, sourceLocation: sourceLocation) }
    } catch {
        Issue.record("unexpected error \(error)", sourceLocation: sourceLocation)
    }
}
