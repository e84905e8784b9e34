import Foundation

// libFuzzer entry point, compiled together with the HaapiModel sources by scripts/fuzz.sh.
//
// Besides "never crash", it checks two properties on every input that decodes:
// the raw JSON written back out parses to the same value, and building a request for every form
// either succeeds or fails with a typed error.
@_cdecl("LLVMFuzzerTestOneInput")
public func haapiDecoderFuzz(_ start: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: start, count: count)
    let decoder = HaapiDecoder()
    guard let response = try? decoder.decode(bytes) else { return 0 }
    let raw: JSONValue
    let actions: [any Action]
    switch response {
    case .representation(let step):
        raw = step.rawJson
        actions = step.actions
    case .problem(let problem):
        raw = problem.rawJson
        actions = []
    }
    guard let reparsed = try? JSONParser().parse(raw.serialized()), reparsed == raw else {
        fatalError("raw JSON did not survive a round trip")
    }
    let base = URL(string: "https://fuzz.example/base/")!
    for case let form as FormAction in actions {
        _ = try? HaapiRequestBuilder.request(submitting: form.model, parameters: ["userName": "a b+c", "password": "p&q"], baseURL: base)
    }
    return 0
}
