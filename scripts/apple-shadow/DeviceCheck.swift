// Stand-in declarations of the DeviceCheck API AppAttestAttester calls, as Apple documents them, for
// scripts/apple-shadow.sh. Not an SDK: only the names and types our code uses.
import Foundation

class DCAppAttestService: NSObject {
    class var shared: DCAppAttestService { fatalError() }
    var isSupported: Bool { false }
    func generateKey() async throws -> String { "" }
    func attestKey(_ keyId: String, clientDataHash: Data) async throws -> Data { Data() }
    func generateAssertion(_ keyId: String, clientDataHash: Data) async throws -> Data { Data() }
}
struct DCError: Error {
    enum Code { case unknownSystemFailure, featureUnsupported, invalidInput, invalidKey, serverUnavailable }
    var code: Code
}
