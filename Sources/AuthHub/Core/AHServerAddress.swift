import Foundation

/// Where a tenant's endpoints are: `https://host/tenant` (the serverHost + tenant form) or a proxy URL that
/// already resolves to the tenant (the serverUrl form).
public struct AHServerAddress: Sendable, Hashable {
    public enum Form: Sendable, Hashable {
        case hostAndTenant(host: String, tenant: String)
        case url(String)
    }

    public let form: Form

    public init(serverHost: String, tenant: String) { form = .hostAndTenant(host: serverHost, tenant: tenant) }
    public init(serverUrl: String) { form = .url(serverUrl) }

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
        _ = try endpoint(.brandingSettings).build()
    }
}
