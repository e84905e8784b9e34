import Foundation

/// What asking `HaapiTokenManager` for the HAAPI token gave: the token with its DPoP key, or why not.
public enum HaapiTokenResult: Sendable {
    /// The token, bound to the manager's key.
    case success(DpopAccessTokenInfo)
    /// Why no token came (a closed manager, a refused attestation, the server's error, …).
    case failure(HaapiError)
}

extension HaapiTokenManager {
    /// The completion-handler form of `getHaapiTokenAsync(forceFresh:)`: `completionHandler` runs on the main
    /// actor with the outcome.
    public nonisolated func getHaapiToken(
        forceFresh: Bool = false, completionHandler: @escaping @MainActor @Sendable (HaapiTokenResult) -> Void
    ) {
        Task {
            let result: HaapiTokenResult
            do throws(HaapiError) {
                result = .success(try await getHaapiTokenAsync(forceFresh: forceFresh))
            } catch {
                result = .failure(error)
            }
            await MainActor.run { completionHandler(result) }
        }
    }
}
