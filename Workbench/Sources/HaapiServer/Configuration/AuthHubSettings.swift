import Foundation

/// The Authentication Hub side of the dev server (seed 002; ../shared/research/authhub-hanko.md part A):
/// which tenants exist, which fields each wants encrypted, and the factors after the password.
public struct AuthHubSettings: Codable, Sendable, Equatable {
    public var tenants: [Tenant]
    /// The scope a client-credentials token needs to call the flow endpoints.
    public var scope: String
    /// How long a flow may take, from `/authenticate` to its end.
    public var flowSeconds: Int

    public struct Tenant: Codable, Sendable, Equatable {
        public var name: String
        /// "password" and/or "devicesignature" (the BrandingSettings value).
        public var fieldsToBeEncryptedInAuthFlow: [String]
        /// Offered at FACTOR_SELECTION after the password, in order: "EMAILOTP", "FIDO". Empty: the password alone signs in.
        public var secondFactors: [String]
        /// A path that serves this tenant without naming it, as a proxy URL would (`/<proxyPath>/auth/v1/…`).
        public var proxyPath: String?

        public init(
            name: String, fieldsToBeEncryptedInAuthFlow: [String] = [], secondFactors: [String] = ["EMAILOTP", "FIDO"],
            proxyPath: String? = nil
        ) {
            self.name = name
            self.fieldsToBeEncryptedInAuthFlow = fieldsToBeEncryptedInAuthFlow
            self.secondFactors = secondFactors
            self.proxyPath = proxyPath
        }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            name = try c.decode(String.self, forKey: .name)
            fieldsToBeEncryptedInAuthFlow =
                try c.decodeIfPresent([String].self, forKey: .fieldsToBeEncryptedInAuthFlow) ?? []
            secondFactors = try c.decodeIfPresent([String].self, forKey: .secondFactors) ?? ["EMAILOTP", "FIDO"]
            proxyPath = try c.decodeIfPresent(String.self, forKey: .proxyPath)
        }
    }

    public static let supportedFields: Set<String> = ["password", "devicesignature"]
    public static let supportedFactors: Set<String> = ["EMAILOTP", "FIDO"]

    public init(tenants: [Tenant], scope: String = "urn:iam:myscopes", flowSeconds: Int = 600) {
        self.tenants = tenants
        self.scope = scope
        self.flowSeconds = flowSeconds
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        tenants = try c.decode([Tenant].self, forKey: .tenants)
        scope = try c.decodeIfPresent(String.self, forKey: .scope) ?? "urn:iam:myscopes"
        flowSeconds = try c.decodeIfPresent(Int.self, forKey: .flowSeconds) ?? 600
    }

    /// The tenant a first path segment names: its own name, or its proxy path.
    func tenant(atPath segment: String) -> Tenant? {
        tenants.first { $0.name == segment } ?? tenants.first { $0.proxyPath == segment }
    }

    func validate() throws {
        let segments = tenants.map(\.name) + tenants.compactMap(\.proxyPath)
        if let repeated = Dictionary(grouping: segments, by: { $0 }).first(where: { $0.value.count > 1 })?.key {
            throw ConfigurationError.invalid("authHub: \"\(repeated)\" names two tenants or proxy paths")
        }
        let reserved: Set<String> = [
            "oauth", "authn", "admin", "health", ".well-known", "registration_initialize", "registration_finalize",
            "authentication_initialize", "authentication_finalize",
        ]
        for tenant in tenants {
            for segment in [tenant.name] + (tenant.proxyPath.map { [$0] } ?? []) {
                guard !segment.isEmpty, !segment.contains("/"), !reserved.contains(segment) else {
                    throw ConfigurationError.invalid("authHub: \"\(segment)\" cannot be a tenant name or proxy path")
                }
            }
            if let field = tenant.fieldsToBeEncryptedInAuthFlow.first(where: { !Self.supportedFields.contains($0) }) {
                throw ConfigurationError.invalid(
                    "authHub tenant \"\(tenant.name)\": unknown field \"\(field)\" (password, devicesignature)")
            }
            if let factor = tenant.secondFactors.first(where: { !Self.supportedFactors.contains($0) }) {
                throw ConfigurationError.invalid(
                    "authHub tenant \"\(tenant.name)\": unknown factor \"\(factor)\" (EMAILOTP, FIDO)")
            }
        }
        if flowSeconds < 1 { throw ConfigurationError.invalid("authHub.flowSeconds must be positive") }
    }
}
