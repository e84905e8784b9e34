import Foundation

/// Why a key could not be imported from PEM: what `ClientAuthenticationMethodJWTAsymmetric.signer(pem:algorithm:)`
/// throws, and `ClientAuthenticationMethodJWTAsymmetric(pem:…)` reports inside `HaapiError.invalidConfiguration`.
public enum CryptoImportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The text holds no PEM block (`-----BEGIN …-----`).
    case notPEM
    /// A symmetric algorithm was asked for: a PEM private key signs only with an asymmetric one.
    case symmetricAlgorithm(String)
    /// The PEM holds no private key of the kind the algorithm needs (an RSA key for ES256, a public key, …).
    case keyDoesNotSuit(algorithm: String, detail: String)

    /// What went wrong, in words for a log or an error message.
    public var description: String {
        switch self {
        case .notPEM: "the text holds no PEM block (-----BEGIN …-----)"
        case .symmetricAlgorithm(let algorithm):
            "\(algorithm) is symmetric: a PEM private key needs an asymmetric algorithm"
        case .keyDoesNotSuit(let algorithm, let detail):
            "the PEM does not hold a private key for \(algorithm): \(detail)"
        }
    }
}
