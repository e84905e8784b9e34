import Foundation
import FuzzSupport
@_spi(Tooling) import HaapiModel
import HaapiServer

// The dev server's configuration loader (`haapi serve --config FILE`): any file gives a configuration or
// a ConfigurationError, never a crash; an accepted configuration encodes and loads again to the same value.
func testOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = Data(fuzzInput(start, count))
    let configuration: ServerConfiguration
    do {
        configuration = try ServerConfiguration.load(json: data)
    } catch is ConfigurationError {
        return 0
    } catch {
        fuzzFailure("the loader threw something other than ConfigurationError: \(error)")
    }
    guard let encoded = try? JSONEncoder().encode(configuration),
        let again = try? ServerConfiguration.load(json: encoded)
    else {
        fuzzFailure("an accepted configuration did not load again after encoding")
    }
    guard canonical(again) == canonical(configuration) else {
        fuzzFailure("a configuration changed through encode and load")
    }
    return 0
}

/// Recorded steps go through `Codable` as values, not as the file's text: member order and number spelling
/// (`1.50`, `1.5`) may change on the way, and nothing else may.
func canonical(_ configuration: ServerConfiguration) -> ServerConfiguration {
    var copy = configuration
    for index in copy.authenticators.indices {
        copy.authenticators[index].recordedSteps = copy.authenticators[index].recordedSteps.map(canonical)
    }
    return copy
}

func canonical(_ value: JSONValue) -> JSONValue {
    switch value {
    case .number(let number): return .number(number.doubleValue.flatMap(JSONNumber.init) ?? number)
    case .array(let items): return .array(items.map(canonical))
    case .object(let object):
        return .object(JSONObject(object.sorted { $0.key < $1.key }.map { ($0.key, canonical($0.value)) }))
    default: return value
    }
}

@_cdecl("ServerConfigurationFuzzer_main")
func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv, testOneInput)
}
