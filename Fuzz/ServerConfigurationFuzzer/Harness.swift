import Foundation
import FuzzSupport
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
    guard again == configuration else { fuzzFailure("a configuration changed through encode and load") }
    return 0
}

@_cdecl("ServerConfigurationFuzzer_main")
func fuzzerMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runLibFuzzer(argc, argv, testOneInput)
}
