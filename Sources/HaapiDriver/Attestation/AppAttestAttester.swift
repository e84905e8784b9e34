#if canImport(DeviceCheck) && os(iOS)
import DeviceCheck
import Foundation

/// DeviceCheck's App Attest service as an `AppAttestKeyService`. A thin adapter: the key handling is
/// `AppAttestKeyAttester`, tested on Linux with a fake service; this file is compiled by the iOS workflow.
public struct DeviceCheckAppAttestService: AppAttestKeyService {
    public init() {}

    public var isSupported: Bool { DCAppAttestService.shared.isSupported }

    public func generateKey() async throws -> String {
        try await DCAppAttestService.shared.generateKey()
    }

    public func attestKey(_ keyID: String, clientDataHash: Data) async throws -> Data {
        try await DCAppAttestService.shared.attestKey(keyID, clientDataHash: clientDataHash)
    }

    public func generateAssertion(_ keyID: String, clientDataHash: Data) async throws -> Data {
        try await DCAppAttestService.shared.generateAssertion(keyID, clientDataHash: clientDataHash)
    }

    public func isInvalidKeyError(_ error: any Error) -> Bool {
        (error as? DCError)?.code == .invalidKey
    }
}

/// Apple App Attest: a key attested once and kept in the Keychain, assertions afterwards (see
/// `AppAttestKeyAttester`).
public typealias AppAttestAttester = AppAttestKeyAttester<DeviceCheckAppAttestService>

extension AppAttestKeyAttester where Service == DeviceCheckAppAttestService {
    /// App Attest through DeviceCheck; the key id lives in `storage` (the Keychain by default).
    public init(storage: any Storage = KeychainStorage(service: "io.swift-haapi.app-attest")) {
        self.init(service: DeviceCheckAppAttestService(), storage: storage)
    }
}
#endif
