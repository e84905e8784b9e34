import Foundation
@_spi(Tooling) import HaapiDriver

/// The seed's FIDO SDK entry point: where an app's passkey ceremonies with the Authentication Hub go, and
/// through which request object. `initFIDO` records the tenant and the request object; `flow(requestHeaders:)`
/// then gives an `AHFlow` whose `registerPasskey` and `authenticateWithPasskey` run the ceremonies there.
public final class AHFIDOSDK: Sendable {
    private let target = LockedValue<(address: AHServerAddress, core: AHCore)?>(nil)

    // The seed's API is a shared instance (`AHFIDOSDK.getInstance().initFIDO(…)` at start-up, the ceremonies
    // later); it holds only where to send them.
    private static let shared = AHFIDOSDK()

    /// The shared instance, as in the seed; `init()` makes one of its own (tests, two hubs).
    public static func getInstance() -> AHFIDOSDK { shared }

    /// An instance of its own, not the shared one (tests, or an app that talks to two hubs).
    public init() {}

    /// Sends the FIDO calls to `serverHost`/`tenant` through `authhubRequest` (nil: the default request object).
    public func initFIDO(serverHost: String, tenant: String, authhubRequest: AuthHubBasicRequest?) {
        set(AHServerAddress(serverHost: serverHost, tenant: tenant), authhubRequest)
    }

    /// Sends the FIDO calls to a proxy URL that resolves to the tenant.
    public func initFIDO(serverUrl: String, authhubRequest: AuthHubBasicRequest?) {
        set(AHServerAddress(serverUrl: serverUrl), authhubRequest)
    }

    /// A flow against the initialised tenant, sending `requestHeaders` (the client's `Authorization`) with
    /// every call. Throws `.transport` before `initFIDO` or when the address is not usable.
    public func flow(requestHeaders: sending [String: Any]) throws(AHFlowError) -> AHFlow {
        guard let target = target.get() else { throw .transport("initFIDO has not been called") }
        do { try target.address.validate() } catch { throw .transport("\(error)") }
        return AHFlow(address: target.address, requestHeaders: requestHeaders, core: target.core)
    }

    private func set(_ address: AHServerAddress, _ request: AuthHubBasicRequest?) {
        let core = AHCore(request: request)
        target.set((address, core))
    }
}
