import Foundation

/// Where a tenant's endpoints are: `https://host/tenant` (the serverHost + tenant form) or a proxy URL that
/// already resolves to the tenant (the serverUrl form).
public struct AHServerAddress: Sendable, Hashable {
    /// The two ways the seed names a tenant.
    public enum Form: Sendable, Hashable {
        /// A host (with or without a scheme; `https` by default) and the tenant under it.
        case hostAndTenant(host: String, tenant: String)
        /// A proxy URL that already resolves to the tenant.
        case url(String)
    }

    /// Which of the two this address is.
    public let form: Form

    /// The tenant `tenant` on `serverHost`.
    public init(serverHost: String, tenant: String) { form = .hostAndTenant(host: serverHost, tenant: tenant) }
    /// A proxy URL that already resolves to the tenant.
    public init(serverUrl: String) { form = .url(serverUrl) }

    /// A new endpoint for the call `path` at this address.
    public func endpoint(_ path: AuthHubEndpoint.Path) -> AuthHubEndpoint {
        switch form {
        case .hostAndTenant(let host, let tenant): AuthHubEndpoint(serverHost: host, tenant: tenant, path: path)
        case .url(let url): AuthHubEndpoint(serverUrl: url, path: path)
        }
    }

    /// The base every path is appended to; also the key under which the tenant's key and settings are cached.
    public var baseURL: String { endpoint(.authEndpoint).baseURL }

    /// Refuses an address that cannot make a request, before any work starts.
    func validate() throws {
        _ = try endpoint(.brandingSettings).httpRequest()
    }
}
