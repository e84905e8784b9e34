import Foundation
import X509

/// Apple App Attest for clients with `"attestation": "appAttest"` (docs/ATTESTATION.md).
public struct AppAttestSettings: Codable, Sendable, Equatable {
    /// Which App Attest environment the keys come from: an app run from Xcode attests in `development`
    /// (aaguid `appattestdevelop`), TestFlight and App Store builds in `production`.
    public enum Environment: String, Codable, Sendable {
        case development, production
    }

    /// The apps whose keys are accepted, as `<Team ID>.<Bundle ID>`.
    public var appIDs: [String]
    /// The root the attestation chain must lead to, PEM; Apple's App Attestation Root CA when absent.
    public var rootCertificate: String?
    /// `development` unless set.
    public var environment: Environment

    public init(appIDs: [String], rootCertificate: String? = nil, environment: Environment = .development) {
        self.appIDs = appIDs
        self.rootCertificate = rootCertificate
        self.environment = environment
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        appIDs = try c.decodeIfPresent([String].self, forKey: .appIDs) ?? []
        rootCertificate = try c.decodeIfPresent(String.self, forKey: .rootCertificate)
        environment = try c.decodeIfPresent(Environment.self, forKey: .environment) ?? .development
    }

    /// The trusted root: the configured PEM, or Apple's.
    func root() throws -> Certificate {
        do { return try Certificate(pemEncoded: rootCertificate ?? AppleAppAttestationRoot.pem) } catch {
            throw ConfigurationError.invalid("appAttest.rootCertificate is not a PEM certificate: \(error)")
        }
    }

    func validate() throws {
        guard !appIDs.isEmpty else {
            throw ConfigurationError.invalid("appAttest.appIDs must name at least one app, as <Team ID>.<Bundle ID>")
        }
        for id in appIDs where !AppleAppID.isValid(id) {
            throw ConfigurationError.invalid(
                "appAttest.appIDs: \"\(id)\" must be <Team ID>.<Bundle Identifier>, e.g. 1ABC23DEF4.com.example.app")
        }
        _ = try root()
    }
}

/// An Apple app id: a ten-character team id, a dot, a bundle identifier.
enum AppleAppID {
    static func isValid(_ id: String) -> Bool {
        let bundleCharacters = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-")
        let teamCharacters = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        let parts = id.split(separator: ".", maxSplits: 1)
        return parts.count == 2 && parts[0].count == 10 && parts[0].allSatisfy(teamCharacters.contains)
            && !parts[1].isEmpty && parts[1].allSatisfy(bundleCharacters.contains)
    }
}
