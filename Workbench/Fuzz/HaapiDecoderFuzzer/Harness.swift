import Foundation
import FuzzSupport
@_spi(Tooling) import HaapiModel

// The HAAPI decoder, and `haapi check`'s audit of a body. Besides "never crash", it checks two properties
// on every input that decodes: the raw JSON written back out parses to the same value, and building a request for every form
// either succeeds or fails with a typed error.
func testOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let bytes = fuzzInput(start, count)
    // `haapi check` reads every body it receives, decodable or not.
    if let server = URL(string: "https://fuzz.example") {
        var audit = RepresentationAudit()
        audit.read(Data(bytes), server: server)
    }
    guard let response = try? HaapiDecoder().decode(bytes) else { return 0 }
    let raw: JSONValue
    let actions: [any Action]
    switch response {
    case .representation(let step):
        raw = step.rawJSON
        actions = step.actions
    case .problem(let problem):
        raw = problem.rawJSON
        actions = []
    }
    guard let reparsed = try? JSONParser().parse(raw.serialized()), reparsed == raw else {
        fuzzFailure("raw JSON did not survive a round trip")
    }
    guard let base = URL(string: "https://fuzz.example/base/") else { return 0 }
    for case let form as FormAction in actions {
        _ = try? HaapiRequestBuilder.request(
            submitting: form.model, parameters: ["userName": "a b+c", "password": "p&q"], baseURL: base)
    }
    return 0
}

@_cdecl("HaapiDecoderFuzzer_main")
func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv, testOneInput)
}
