/// Where each endpoint lives, relative to the issuer.
enum Paths {
    static let discovery = "/.well-known/openid-configuration"
    static let authorizationServerMetadata = "/.well-known/oauth-authorization-server"
    static let jwks = "/oauth/jwks"
    static let token = "/oauth/token"
    static let cat = "/oauth/token/cat"
    static let authorize = "/oauth/authorize"
    static let authorizeResume = "/oauth/authorize/resume"
    static let consent = "/oauth/authorize/consent"
    static let consentCancel = "/oauth/authorize/cancel"
    static let revoke = "/oauth/revoke"
    static let introspect = "/oauth/introspect"
    static let register = "/oauth/register"
    static let userinfo = "/oauth/userinfo"
    static let authenticate = "/authn/authenticate"
    static let browser = "/authn/browser"
    static let adminApprove = "/admin/approve"
    static let adminApprovals = "/admin/approvals"
    static let adminOutbox = "/admin/outbox"
    static let health = "/health"
}

enum Scopes {
    static let haapi = "urn:se:curity:scopes:haapi"
    static let dcr = "dcr"
}

enum AssertionTypes {
    static let attestation = "urn:se:curity:attestation:client"
    static let jwtBearer = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
}
