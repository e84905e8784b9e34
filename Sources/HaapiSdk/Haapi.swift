import Foundation

/// The protocol's fixed names, in one place: the media type of representations, the HAAPI token's scope, the
/// headers that carry the flow's session.
public enum Haapi {
    /// The media type of HAAPI representations (`Accept` of every HAAPI request).
    public static let mediaType = HaapiMediaType.representation
    /// The media type of HAAPI problems.
    public static let problemMediaType = HaapiMediaType.problem
    /// The scope of the HAAPI access token.
    public static let scope = HaapiTokenManager.haapiScope
    /// The header in which the server sets the flow's session.
    public static let setSessionIdHeader = "Set-Session-Id"
    /// The header in which the client sends the flow's session back.
    public static let sessionIdHeader = "Session-Id"
}
