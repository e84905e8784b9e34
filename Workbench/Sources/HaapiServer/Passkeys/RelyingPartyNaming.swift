import Foundation

/// The relying party the server is for passkeys: its RP ID and the origins it accepts.
protocol RelyingPartyNaming: PublicAddressing {
    var configuration: ServerConfiguration { get }
}

extension RelyingPartyNaming {
    /// `passkeys.rpId`, or the host of the server's public URL.
    var relyingPartyID: String { configuration.passkeys.rpId ?? URL(string: issuer)?.host ?? "localhost" }

    /// `passkeys.origins`, or the server's own origin.
    var relyingPartyOrigins: [String] {
        let configured = configuration.passkeys.origins.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
        return configured.isEmpty ? [issuerOrigin] : configured
    }
}
