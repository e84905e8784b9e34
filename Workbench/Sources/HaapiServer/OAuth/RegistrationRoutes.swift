import Foundation
@_spi(Tooling) import HaapiDriver
import HaapiRules
import Hummingbird

/// Dynamic client registration (RFC 7591) from templates, with a `dcr`-scoped, DPoP-bound token.
struct RegistrationRoutes: ServerService, DPoPGated, AccessTokenReading {
    let address: ServerAddress
    let configuration: ServerConfiguration
    let store: ServerStore
    let clients: ClientRegistry
    let dpop: DPoPVerifier
    let nonces: DPoPNonceService
    let accessTokens: SealedAccessTokens
    let clock: @Sendable () -> Date
}

extension RegistrationRoutes {
    func addRoutes(to router: Router<ServerRequestContext>) {
        router.post(RouterPath(stringLiteral: Paths.register)) { request, _ in try await self.register(request) }
    }

    /// Templatized dynamic client registration (RFC 7591): the caller presents a `dcr`-scoped token of the
    /// template's main client and names the template in `software_id`; the new client gets its own secret.
    func register(_ incoming: Request) async throws(Rejection) -> Response {
        var request = incoming
        let now = clock()
        guard let authorization = HTTP.header(request, .authorization), let space = authorization.firstIndex(of: " ")
        else {
            return HTTP.oauthError(
                "invalid_token", "a dcr-scoped access token is required", rule: .accessTokenInvalid,
                detail: "Authorization: expected a dcr-scoped access token, got none", status: .unauthorized,
                headers: [.wwwAuthenticate: "Bearer error=\"invalid_token\""])
        }
        let scheme = authorization[..<space].lowercased()
        let token = String(HTTP.trimmingOWS(authorization[authorization.index(after: space)...]))
        guard scheme == "bearer" || scheme == "dpop", let record = try await accessTokenRecord(token), !record.revoked,
            record.expiresAt > now, record.scope.split(separator: " ").contains(Substring(Scopes.dcr))
        else {
            return HTTP.oauthError(
                "invalid_token", "the access token is not valid for registration", rule: .accessTokenInvalid,
                detail:
                    "token \(MaskedText.token(token)): unknown, expired, revoked or without the \(Scopes.dcr) scope",
                status: .unauthorized,
                headers: [.wwwAuthenticate: "Bearer error=\"invalid_token\""])
        }
        if let jkt = record.jkt {
            guard scheme == "dpop", let caller = try await clients.client(id: record.clientID) else {
                return HTTP.oauthError(
                    "invalid_token", "a DPoP-bound token must be sent with the DPoP scheme", rule: .tokenScheme,
                    detail: "Authorization: expected the DPoP scheme for a bound token, got \(scheme)",
                    status: .unauthorized)
            }
            do throws(Rejection) {
                _ = try await checkProof(
                    request, at: .registration, client: caller, accessToken: token, boundJKT: jkt, required: true)
            } catch {
                return error.response
            }
        }
        let body: String
        do throws(RequestFailure) {
            body = try await HTTP.bodyText(&request, limit: configuration.security.maxRequestBytes)
        } catch {
            return error.response
        }
        guard let metadata = try? JSONParser(limits: .init(maxBytes: 16 * 1024, maxDepth: 8)).parse(body),
            metadata.objectValue != nil
        else {
            return HTTP.oauthError(
                "invalid_client_metadata", "the body must be a JSON object", rule: .clientMetadata,
                detail: "body: expected a JSON object of at most 16 KiB")
        }
        guard let templateID = metadata["software_id"]?.stringValue else {
            return HTTP.oauthError(
                "invalid_client_metadata", "software_id (the template client id) is required", rule: .clientMetadata,
                detail: "software_id: expected a registration template's client id, got none")
        }
        guard let template = configuration.clients.first(where: { $0.id == templateID }),
            let rules = template.dcrTemplate
        else {
            return HTTP.oauthError(
                "invalid_software_statement", "\(templateID) is not a registration template", rule: .clientMetadata,
                detail: "software_id: \(templateID.prefix(100)) is not a client with dcrTemplate")
        }
        guard rules.authenticateClientBy == record.clientID else {
            return HTTP.oauthError(
                "invalid_token", "this token's client may not register from \(templateID)", rule: .grantNotAllowed,
                detail: "the token's client \(record.clientID) is not \(templateID)'s authenticateClientBy",
                status: .forbidden)
        }
        let clientID = "dyn-" + SecureRandom.token(byteCount: 12)
        let secret = SecureRandom.token(byteCount: 32)
        do {
            try await store.insertDynamicClient(
                DynamicClient(id: clientID, secretHash: TokenHash.of(secret), templateID: templateID), now: now)
        } catch {
            return HTTP.oauthError(
                "server_error", "could not store the client", rule: .storeFailure, status: .internalServerError)
        }
        return HTTP.json(
            [
                "client_id": .string(clientID),
                "client_secret": .string(secret),
                "client_id_issued_at": .number(JSONNumber(Int(now.timeIntervalSince1970))),
                "client_secret_expires_at": 0,
                "token_endpoint_auth_method": "client_secret_basic",
                "grant_types": ["authorization_code", "refresh_token", "client_credentials"],
                "redirect_uris": .array(template.redirectURIs.map(JSONValue.string)),
                "scope": .string((template.scopes + [Scopes.haapi]).joined(separator: " ")),
                "software_id": .string(templateID),
            ], status: .created)
    }
}
