import ArgumentParser
import Foundation
@_spi(Tooling) import HaapiSdk

/// How the CLI's client authenticates at the token endpoint; shared by `login` and `token`.
///
/// Options that carry secrets, tokens or codes parse `.unconditional`ly throughout the CLI: these values are random
/// base64url text and may begin with `-`, which would otherwise be taken for the next option.
struct ClientOptions: ParsableArguments {
    @Option(name: .long, help: "The OAuth client id (for `haapi token`, it may come from --session instead).")
    var clientId: String?

    @Option(
        name: .long, parsing: .unconditional,
        help:
            "Client secret (client_secret_basic, or client_secret_post with --secret-in-body). Prefer --client-secret-file or $HAAPI_CLIENT_SECRET: options are visible to other users."
    )
    var clientSecret: String?

    @Option(name: .long, help: "A file holding the client secret (- reads standard input).")
    var clientSecretFile: String?

    @Flag(name: .long, help: "Send the client secret in the form body instead of the Authorization header.")
    var secretInBody = false

    @Option(name: .long, help: "PEM file with the client's private key (private_key_jwt).")
    var clientKey: String?

    @Option(
        name: .long,
        help:
            "Algorithm for --client-key: RS256…512, PS256…512, ES256…512 (default: RS256 for RSA keys, ES256 for EC keys)."
    )
    var clientKeyAlg: String?

    @Option(name: .long, help: "The kid the server registered --client-key under (sent in the assertion's header).")
    var clientKeyId: String?

    @Option(
        name: .long, parsing: .unconditional,
        help: "Shared secret for client_secret_jwt (or --client-jwt-secret-file, or $HAAPI_CLIENT_JWT_SECRET).")
    var clientJwtSecret: String?

    @Option(name: .long, help: "A file holding the client_secret_jwt secret (- reads standard input).")
    var clientJwtSecretFile: String?

    @Option(name: .long, help: "Algorithm for --client-jwt-secret: HS256, HS384 or HS512.")
    var clientJwtAlg = "HS256"

    func validate() throws {
        let chosen = [
            clientSecret != nil || clientSecretFile != nil, clientKey != nil,
            clientJwtSecret != nil || clientJwtSecretFile != nil,
        ]
        guard chosen.filter({ $0 }).count <= 1 else {
            throw ValidationError("choose one of --client-secret, --client-key and --client-jwt-secret")
        }
    }

    /// The client secret from the option, its file, or $HAAPI_CLIENT_SECRET (only when no other method is chosen).
    var resolvedClientSecret: String? {
        get throws {
            let env =
                clientKey == nil && clientJwtSecret == nil && clientJwtSecretFile == nil ? "HAAPI_CLIENT_SECRET" : "-"
            return try SecretInput.resolve(
                value: clientSecret, file: clientSecretFile, environment: env, option: "--client-secret")
        }
    }

    func authenticationMethod() throws -> any ClientAuthenticationMethod {
        let clientJwtSecret =
            clientKey == nil
            ? try SecretInput.resolve(
                value: self.clientJwtSecret, file: clientJwtSecretFile, environment: "HAAPI_CLIENT_JWT_SECRET",
                option: "--client-jwt-secret")
            : nil
        let clientSecret = clientJwtSecret == nil ? try resolvedClientSecret : nil
        if let clientSecret {
            return ClientAuthenticationMethodSecret(clientSecret, placement: secretInBody ? .post : .basic)
        }
        if let clientJwtSecret {
            guard let algorithm = JWTSymmetricAlgorithm(rawValue: clientJwtAlg.uppercased()) else {
                throw ValidationError("--client-jwt-alg must be HS256, HS384 or HS512")
            }
            return ClientAuthenticationMethodJWTSymmetric(signatureAlgorithm: algorithm, secretKey: clientJwtSecret)
        }
        if let clientKey {
            let pem = String(decoding: try StandardStreams.read(clientKey, what: "--client-key file"), as: UTF8.self)
            let fallback = pem.contains("EC PRIVATE KEY") || !pem.contains("RSA") && pem.count < 400 ? "ES256" : "RS256"
            guard let algorithm = JWTAsymmetricAlgorithm(rawValue: (clientKeyAlg ?? fallback).uppercased()) else {
                throw ValidationError("--client-key-alg must be one of RS/PS/ES 256, 384 or 512")
            }
            return try ClientAuthenticationMethodJWTAsymmetric(
                pem: pem, signatureAlgorithm: algorithm, keyID: clientKeyId)
        }
        return ClientAuthenticationMethodNone()
    }
}

/// Token output: tokens are masked unless the user asks to see them.
enum TokenOutput {
    static let tokenMembers: Set<String> = ["access_token", "refresh_token", "id_token"]

    /// JSON for scripts: without `showTokens` each token member becomes `{"redacted": true, "length": N}`, a
    /// value no program can mistake for a token (a masked string would look like one).
    static func json(_ object: JSONObject, showTokens: Bool) -> String {
        guard !showTokens else { return JSONValue.object(object).serialized() }
        var redacted = object
        for name in tokenMembers {
            guard let value = redacted[name]?.stringValue else { continue }
            redacted[name] = .object(["redacted": .bool(true), "length": .number(JSONNumber(value.count))])
        }
        return JSONValue.object(redacted).serialized()
    }

    /// A token as `MaskedText` shows one (its first 6 characters and its length), and how to see it whole.
    static func mask(_ token: String) -> String {
        MaskedText.token(token) + " masked; --show-tokens to print"
    }

    static func errorJSON(_ error: ErrorTokenResponse) -> String {
        var object: JSONObject = ["error": .string(error.error)]
        if let description = error.errorDescription { object["error_description"] = .string(description) }
        if let uri = error.errorUri { object["error_uri"] = .string(uri) }
        return JSONValue.object(object).serialized()
    }
}
