import Foundation

/// Drives a HAAPI flow for any renderer: it publishes what to show (`uiModel`), whether a request is
/// running (`isLoading`), how the flow failed (`error`) and the tokens it produced (`oAuthModel`), and
/// takes the user's choices. Polling steps are polled automatically (configurable), with a timeout.
@MainActor
public final class HaapiFlowViewModel: ObservableObject {
    /// Whether a request is running; a renderer shows progress and disables input.
    @Published public private(set) var isLoading = false {
        didSet { announceChange() }
    }
    /// What to show now: the current step as a screen model, with any problem attached.
    @Published public private(set) var uiModel: HaapiUIModel? {
        didSet { announceChange() }
    }
    /// How the flow failed, once it has.
    @Published public private(set) var error: (any Error)? {
        didSet { announceChange() }
    }
    /// The tokens the flow produced, once it has.
    @Published public private(set) var oAuthModel: (any OAuthModel)? {
        didSet { announceChange() }
    }
    /// With `shouldAutoHandleFlowErrorFeedback` (the default): the alert to show when the flow fails. The
    /// failure reaches `HaapiFlowResult` when the user dismisses it (`acknowledgeErrorFeedback()`).
    @Published public private(set) var errorFeedback: FlowErrorFeedback?
    /// With `authenticationSelectionPresentation == .tabs`: the authenticators as tabs, the selected one's
    /// screen being `uiModel` (the selector step itself is never shown). `nil` in `.list` mode.
    @Published public private(set) var authenticatorTabs: AuthenticatorTabs?
    /// While a polling step waits through a bad network: the last poll failed in a way that passes (a lost
    /// answer, a timeout, no connection, a 502/503/504) and the next one is scheduled. `nil` once a poll is
    /// answered. A renderer shows "reconnecting" instead of the step's own waiting text.
    @Published public private(set) var reconnecting: PollingReconnection? {
        didSet { announceChange() }
    }

    /// The application whose configuration, theme and DPoP key the flow uses.
    public let haapiUIKitApplication: HaapiUIKitApplication
    private let flowResult: (any HaapiFlowResult)?
    private let clock: @Sendable () -> Date
    private var accessor: (any HaapiAccessor)?
    private var pollingTask: Task<Void, Never>?
    /// The poll request in flight, cancelled with the polling; `pollingGeneration` tells a stopped poll's late
    /// answer from the current one's.
    private var pollRequest: Task<HaapiResult, Never>?
    private var pollingGeneration = 0
    private var pollingDeadline: Date?
    private var isFinished = false
    /// The failure `errorFeedback` holds back from `flowResult` until the user has seen it.
    private var unreportedError: (any Error)?
    /// Whether the app was opened for the current wait (a launch step, then its polling steps): each poll
    /// answer is a new polling step, and the app is opened once.
    private var openedAppWhilePolling = false
    /// Counts external-browser launches, so a page closed after another was opened leaves the newer one's
    /// wait for the redirect alone.
    private var browserLaunches = 0

    /// A view model for one flow; `flowResult` hears how it ends, and `clock` dates polling deadlines.
    public init(
        haapiUIKitApplication: HaapiUIKitApplication, flowResult: (any HaapiFlowResult)? = nil,
        clock: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.haapiUIKitApplication = haapiUIKitApplication
        self.flowResult = flowResult
        self.clock = clock
    }

    private var configuration: HaapiUIKitConfiguration { haapiUIKitApplication.haapiUIKitConfiguration }

    /// Goes up by one whenever `uiModel` is replaced or a problem is attached to it, so a renderer that
    /// waits (during polling) can tell that something new arrived.
    public private(set) var revision = 0 {
        didSet { announceChange() }
    }

    /// The renderers listening through `changes()`, by subscription.
    private var listeners: [UInt64: AsyncStream<Void>.Continuation] = [:]
    private var nextListener: UInt64 = 0

    /// An element each time what a renderer shows may have changed (`uiModel`, `revision`, `isLoading`,
    /// `error`, `oAuthModel`), for renderers without Combine or SwiftUI (the terminal). Changes that come
    /// faster than the listener reads collapse into one; the stream ends when the listener stops iterating.
    public func changes() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let id = nextListener
        nextListener += 1
        listeners[id] = continuation
        continuation.onTermination = { [weak self] _ in
            Task { @MainActor in self?.listeners[id] = nil }
        }
        return stream
    }

    private func announceChange() {
        for listener in listeners.values { listener.yield() }
    }

    /// The client the flow runs as (a dynamic client after the DCR fallback); `nil` before `start()`.
    public var flowClientID: String? { accessor?.haapiManager.configuration.clientId }

    /// Whether automatic polling is waiting for its next poll.
    public var isPolling: Bool { pollingTask != nil }

    // MARK: - What the user can do

    /// Starts (or restarts) the flow: builds the managers on the first call, then asks for the first step.
    public func start() async {
        stopPolling()
        isFinished = false
        error = nil
        errorFeedback = nil
        unreportedError = nil
        authenticatorTabs = nil
        openedAppWhilePolling = false
        oAuthModel = nil
        uiModel = nil
        isLoading = true
        if accessor == nil {
            do throws(HaapiError) {
                accessor = try await haapiUIKitApplication.accessor()
            } catch {
                fail(error)
                return
            }
        }
        guard let manager = accessor?.haapiManager else { return }
        await handle(await manager.start())
    }

    /// Chooses an option of a selector (an authenticator, a device).
    public func select(_ option: SelectorOptionUIModel) async {
        await send { await $0.submitForm(option.model) }
    }

    /// In tabs mode: shows the authenticator of tab `index` (its first screen, as the server sends it).
    public func selectTab(_ index: Int) async {
        guard let tabs = authenticatorTabs, tabs.options.indices.contains(index) else { return }
        authenticatorTabs = AuthenticatorTabs(options: tabs.options, selectedIndex: index)
        await select(tabs.options[index])
    }

    /// Submits a form with the user's values (by field name); hidden fields keep the server's values.
    public func submit(_ form: FormUIModel, values: [String: any Sendable] = [:]) async {
        await send { await $0.submitForm(form.model, parameters: values) }
    }

    /// Follows a link of the current step.
    public func followLink(_ link: LinkUIModel) async {
        guard !link.isDataImage else { return }
        await send { await $0.followLink(link.link) }
    }

    /// Continues a client operation with the values it produced (a credential, a resume nonce, …).
    public func continueClientOperation(parameters: [String: any Sendable]) async {
        guard case .clientOperation(let operation)? = uiModel?.content, let form = operation.continueForm else {
            return
        }
        await send { await $0.submitForm(form, parameters: parameters) }
    }

    /// Continues an external-browser operation with the URL the browser came back to: the app's redirect URI
    /// (`appRedirect`, followed by its query) carrying the resume nonce. Any other URL resumes nothing.
    public func resumeExternalBrowser(with url: URL) async -> Bool {
        guard RedirectPrefix.matches(url, prefix: configuration.appRedirect),
            case .clientOperation(let operation)? = uiModel?.content,
            let browser = operation.step as? ExternalBrowserClientOperationStep,
            let parameters = browser.formattedParametersFromURL(url)
        else { return false }
        await continueClientOperation(parameters: parameters)
        return true
    }

    /// Runs the current external-browser step with the configured `ExternalBrowserLauncher`: `deepLinks`
    /// waits for the app's redirect URI, the launcher shows the page, and the URL that comes back (from
    /// the launcher, or later through `deepLinks`) resumes the flow. A page closed without a return leaves
    /// the step as it was and `deepLinks` waiting for nothing.
    ///
    /// Returns whether the flow resumed or waits for the app's URL handler; `false` when there is no
    /// launcher, no page to show, or the page was closed.
    @discardableResult
    public func openExternalBrowser(deepLinks: any HaapiDeepLinkManageable) async -> Bool {
        guard case .clientOperation(let operation)? = uiModel?.content,
            operation.step is ExternalBrowserClientOperationStep, let url = operation.launchURL,
            let launcher = configuration.externalBrowserLauncher
        else { return false }
        let redirect = configuration.appRedirect
        browserLaunches += 1
        let launch = browserLaunches
        deepLinks.expect(urlWithPrefix: redirect) { [weak self] returned in
            Task { @MainActor in _ = await self?.resumeExternalBrowser(with: returned) }
        }
        let outcome = await launcher.launch(url, callbackPrefix: redirect)
        // Only the latest launch owns the wait for the redirect (opening the page again closes the first).
        let latest = launch == browserLaunches
        switch outcome {
        case .returned(let returned):
            if latest { deepLinks.cancelExpectation() }
            // A launcher hands back what it caught; only the app's redirect resumes the flow (checked there).
            return await resumeExternalBrowser(with: returned)
        case .returnsThroughApp:
            return true
        case .closed:
            if latest { deepLinks.cancelExpectation() }
            return false
        }
    }

    /// Runs a passkey step (`webauthn-registration` / `webauthn-authentication`) with the configured
    /// authenticator and posts the credential back. When there is no authenticator or it fails, the
    /// step's fallback action is taken if it has one; otherwise the flow ends with the error.
    /// Returns whether a credential was sent.
    @discardableResult
    public func performPasskeyOperation() async -> Bool {
        guard case .clientOperation(let operation)? = uiModel?.content else { return false }
        let contextFields = operation.continueForm?.fields.filter { $0.type == .context }.map(\.name) ?? []
        let origin = configuration.passkeyOrigin ?? Self.origin(of: configuration.baseUrl)
        do throws(WebAuthnError) {
            guard let authenticator = configuration.passkeyAuthenticator else {
                throw .notAllowed("no passkey authenticator is configured")
            }
            let arguments = operation.step.clientOperationAction.model.arguments
            if operation.step is WebAuthnRegistrationClientOperationStep {
                // Passkeys mode answers in `credential`; the any-device mode answers in the field that matches the
                // options used (platform first: this authenticator is a platform one).
                let modes: [(options: String, field: String)] = [
                    ("credentialCreationOptions", "credential"),
                    ("platformCredentialCreationOptions", "platformCredential"),
                    ("crossPlatformCredentialCreationOptions", "crossPlatformCredential"),
                ]
                guard let mode = modes.first(where: { arguments?[$0.options] != nil }),
                    let json = arguments?[mode.options]
                else {
                    throw .malformed("the step carries no creation options")
                }
                let field = contextFields.contains(mode.field) ? mode.field : contextFields.first ?? mode.field
                let response = try await authenticator.register(
                    try PublicKeyCredentialCreationOptions(json: json), origin: origin)
                await continueClientOperation(parameters: [field: response.json])
            } else if operation.step is WebAuthnAuthenticationClientOperationStep {
                guard let json = arguments?["credentialRequestOptions"] else {
                    throw .malformed("the step carries no request options")
                }
                let response = try await authenticator.authenticate(
                    try PublicKeyCredentialRequestOptions(json: json), origin: origin)
                await continueClientOperation(parameters: [contextFields.first ?? "credential": response.json])
            } else {
                return false
            }
            return true
        } catch {
            HaapiLogger.warning(UIKitFollowUpTag.component, "passkey operation failed: \(error)")
            if let fallback = operation.errorForms.first {
                await submit(fallback)
            } else {
                fail(error)
            }
            return false
        }
    }

    /// Opens the app a BankID or Encap step names (the configuration's `externalAppOpener`) and goes on with
    /// the flow: a client-operation step continues with its continue action (usually to polling), a polling
    /// step keeps polling. Without an opener, or when the app cannot be opened, nothing is sent and the
    /// step stays for the user (its error actions offer another way). Returns whether the app was opened.
    @discardableResult
    public func launchExternalApp() async -> Bool {
        let url: URL?
        var continueForm: FormActionModel?
        switch uiModel?.content {
        case .clientOperation(let operation)? where operation.opensExternalApp:
            url = operation.launchURL
            continueForm = operation.continueForm
        case .polling(let polling)?:
            url = polling.appLaunchURL
        default:
            url = nil
        }
        guard let url, let opener = configuration.externalAppOpener else { return false }
        guard await opener.open(url) else {
            HaapiLogger.warning(UIKitFollowUpTag.component, "the app for \(url.scheme ?? "?"): could not be opened")
            return false
        }
        // The continue action starts the wait (its answer is the polling step): a bad network is waited through
        // as a poll's is.
        if let continueForm {
            isLoading = true
            await pollOnce(continueForm)
        }
        return true
    }

    /// Dismisses `errorFeedback` and reports the failure it held to `HaapiFlowResult`.
    public func acknowledgeErrorFeedback() {
        guard errorFeedback != nil else { return }
        errorFeedback = nil
        if let unreportedError {
            self.unreportedError = nil
            flowResult?.didReceiveError(unreportedError)
        }
    }

    static func origin(of url: URL) -> String {
        var components = URLComponents(url: url, resolvingAgainstBaseURL: true)
        components?.path = ""
        components?.query = nil
        components?.fragment = nil
        return components?.string ?? url.absoluteString
    }

    /// Polls once now (also used when automatic polling is off).
    public func poll() async {
        stopPolling()
        guard case .polling(let polling)? = uiModel?.content, let action = polling.pollAction else { return }
        await pollOnce(action)
    }

    /// Stops polling and tells the server the user gave up waiting. While reconnecting (the network is known to
    /// be bad) the flow ends at once, and the server is told in the background as well as it can be.
    public func cancelPolling() async {
        let wasReconnecting = reconnecting != nil
        stopPolling()
        guard case .polling(let polling)? = uiModel?.content, let cancelAction = polling.cancelAction else {
            cancel()
            return
        }
        if wasReconnecting, let manager = accessor?.haapiManager {
            cancel()
            Task { _ = await manager.submitForm(cancelAction) }
            return
        }
        await send { await $0.submitForm(cancelAction) }
    }

    /// Leaves the flow.
    public func cancel() {
        stopPolling()
        guard !isFinished else { return }
        fail(HaapiUIError.flowCancelled)
    }

    /// Stops polling and closes the flow's HAAPI manager; call when the screens go away.
    public func close() async {
        stopPolling()
        await accessor?.haapiManager.close()
        accessor = nil
    }

    // MARK: - Results

    private func send(
        showLoading: Bool = true, _ operation: @escaping @Sendable (HaapiManager) async -> HaapiResult
    ) async {
        guard let manager = accessor?.haapiManager, !isFinished else { return }
        if showLoading { isLoading = true }
        await handle(await operation(manager))
    }

    private func handle(_ result: HaapiResult) async {
        // An answer that comes after the user left the flow changes nothing.
        guard !isFinished else { return }
        switch result {
        case .representation(let step as OAuthAuthorizationResponseStep):
            stopPolling()
            await redeem(step)
        case .representation(let same as ContinueSameStep) where same.actions.isEmpty && uiModel != nil:
            // "No progress": the screen the user acted on stays (a resend's code form), with the step's message.
            if let current = uiModel { uiModel = UIModelMapper.attach(same, to: current) }
            revision += 1
            isLoading = false
        case .representation(let step):
            show(step)
        case .problem(let problem):
            isLoading = false
            guard let current = uiModel else {
                fail(HaapiUIError.problem(type: problem.type.rawValue, title: problem.title?.description))
                return
            }
            uiModel = UIModelMapper.attach(problem, to: current)
            revision += 1
            if case .polling = current.content { stopPolling() }
        case .error(let error):
            fail(error)
        }
    }

    private func show(_ step: any HaapiRepresentation) {
        if configuration.authenticationSelectionPresentation == .tabs, step is AuthenticatorSelectorStep,
            case .selector(let options) = UIModelMapper.model(
                for: step, configuration: configuration, now: clock(), pollingDeadline: nil
            ).content,
            let first = options.first
        {
            // Tabs: the pager shows the first authenticator's screen straight away.
            authenticatorTabs = AuthenticatorTabs(options: options, selectedIndex: 0)
            Task { [weak self] in await self?.select(first) }
            return
        }
        let isPollingStep = step is PollingStep
        if !isPollingStep { pollingDeadline = nil }
        if isPollingStep, pollingDeadline == nil {
            pollingDeadline = clock().addingTimeInterval(configuration.pollingTimeout)
        }
        let model = UIModelMapper.model(
            for: step, configuration: configuration, now: clock(), pollingDeadline: pollingDeadline)
        HaapiLogger.debug(
            UIKitFollowUpTag.layout, "showing \(step.type.rawValue) (\(model.viewName ?? "no view name"))")
        uiModel = model
        revision += 1
        isLoading = false
        if case .polling(let polling) = model.content { schedulePolling(polling, step: step) }
        openAppOnce(model)
    }

    /// A step that opens another app does so by itself once, when an opener is configured.
    private func openAppOnce(_ model: HaapiUIModel) {
        let opensApp: Bool
        switch model.content {
        case .clientOperation(let operation):
            // The polling that follows a launch step (BankID) must not open the app a second time.
            opensApp = operation.opensExternalApp
            openedAppWhilePolling = opensApp
        case .polling(let polling):
            opensApp = polling.appLaunchURL != nil && !openedAppWhilePolling
            if opensApp { openedAppWhilePolling = true }
        default:
            opensApp = false
            openedAppWhilePolling = false
        }
        guard opensApp, configuration.externalAppOpener != nil else { return }
        Task { [weak self] in await self?.launchExternalApp() }
    }

    private func schedulePolling(_ polling: PollingUIModel, step: any HaapiRepresentation) {
        stopPolling()
        guard configuration.autoPollingDuration > 0 else { return }
        if polling.status == .done, let main = (step as? PollingStep)?.mainAction?.model {
            // The wait is over: continue with the action the server offers, as a poll would.
            pollingTask = Task { [weak self] in
                await self?.continueAfterPolling(main)
            }
            return
        }
        guard polling.status == .pending, let action = polling.pollAction else { return }
        let interval = max(polling.interval, 0.2)
        let deadline = polling.deadline
        pollingTask = Task { [weak self, clock] in
            try? await Task.sleep(nanoseconds: UInt64(interval * 1_000_000_000))
            guard !Task.isCancelled, let self else { return }
            if let deadline, clock() >= deadline {
                await self.pollingTimedOut()
                return
            }
            await self.autoPoll(action)
        }
    }

    private func autoPoll(_ action: FormActionModel) async {
        pollingTask = nil
        await pollOnce(action)
    }

    /// One poll, cancelled with the polling (`stopPolling`). A failure the network or a busy server causes
    /// (``PollingReconnection/passes(_:)``) keeps the step and polls again after a wait, until the step's own
    /// deadline; any other answer is handled as usual.
    private func pollOnce(_ action: FormActionModel) async {
        guard let manager = accessor?.haapiManager, !isFinished else { return }
        let generation = pollingGeneration
        let request = Task { await manager.submitForm(action) }
        pollRequest = request
        let result = await request.value
        guard generation == pollingGeneration, !isFinished else { return }
        pollRequest = nil
        if case .error(let error) = result, PollingReconnection.passes(error), let interval = waitingInterval {
            reconnect(after: error, wait: PollingReconnection.askedWait(error), interval: interval, action: action)
            return
        }
        reconnecting = nil
        await handle(result)
    }

    /// Keeps the polling step through a failed poll: the next poll after the wait the server asked for
    /// (`Retry-After`), else a back-off from the step's interval; never past the step's deadline.
    private func reconnect(
        after error: any Error, wait asked: TimeInterval?, interval: TimeInterval, action: FormActionModel
    ) {
        let attempt = (reconnecting?.attempt ?? 0) + 1
        let wait = PollingReconnection.wait(attempt: attempt, interval: interval, asked: asked)
        let now = clock()
        // A wait without a deadline of its own (an app-launch step's) gets the polling timeout from now.
        if pollingDeadline == nil { pollingDeadline = now.addingTimeInterval(configuration.pollingTimeout) }
        isLoading = false
        let next = now.addingTimeInterval(wait)
        HaapiLogger.info(
            UIKitFollowUpTag.component,
            "poll \(attempt) failed (\(String(describing: error))); polling again in \(wait) s")
        reconnecting = PollingReconnection(attempt: attempt, reason: error.localizedDescription, nextPoll: next)
        let deadline = pollingDeadline
        pollingTask = Task { [weak self, clock] in
            let until = deadline.map { min(next, $0) } ?? next
            try? await Task.sleep(nanoseconds: UInt64(max(0, until.timeIntervalSince(clock())) * 1_000_000_000))
            guard !Task.isCancelled, let self else { return }
            if let deadline, clock() >= deadline {
                await self.pollingTimedOut()
                return
            }
            await self.autoPoll(action)
        }
    }

    private func continueAfterPolling(_ action: FormActionModel) async {
        pollingTask = nil
        await send { await $0.submitForm(action) }
    }

    private func pollingTimedOut() async {
        pollingTask = nil
        if case .polling(let polling)? = uiModel?.content, let cancel = polling.cancelAction,
            let manager = accessor?.haapiManager
        {
            _ = await manager.submitForm(cancel)
        }
        fail(HaapiUIError.pollingTimedOut(after: configuration.pollingTimeout))
    }

    /// The interval between polls while the screen waits: a polling step's own, or a second for the step that
    /// opened another app and whose continue action starts the polling. `nil` when the screen is not a wait.
    private var waitingInterval: TimeInterval? {
        switch uiModel?.content {
        case .polling(let polling)?: max(polling.interval, 0.2)
        case .clientOperation(let operation)? where operation.opensExternalApp: 1
        default: nil
        }
    }

    private func stopPolling() {
        pollingTask?.cancel()
        pollingTask = nil
        pollRequest?.cancel()
        pollRequest = nil
        pollingGeneration += 1
        reconnecting = nil
    }

    private func redeem(_ step: OAuthAuthorizationResponseStep) async {
        guard let code = step.oauthAuthorizationResponseProperties.code, let accessor else {
            fail(HaapiUIError.unsupportedStep("authorization response without a code"))
            return
        }
        let bound = !(configuration.tokenBoundConfiguration is UnboundedTokenConfiguration)
        let dpop = bound ? accessor.haapiManager.dpop : nil
        let verifier = accessor.haapiManager.codeVerifier(for: code)
        switch await accessor.oAuthTokenManager.fetchAccessToken(with: code, dpop: dpop, codeVerifier: verifier) {
        case .successfulToken(let token):
            let model = OAuthTokenModel(token)
            isFinished = true
            isLoading = false
            oAuthModel = model
            HaapiLogger.info(UIKitFollowUpTag.component, "flow finished: \(model)")
            flowResult?.didReceiveOAuthTokenModel(model)
        case .errorToken(let error):
            fail(
                HaapiError.serverError(
                    error: error.error, errorDescription: error.errorDescription ?? "", statusCode: 400))
        case .error(let error):
            fail(error)
        }
    }

    private func fail(_ error: any Error) {
        stopPolling()
        isLoading = false
        isFinished = true
        self.error = error
        HaapiLogger.warning(UIKitFollowUpTag.component, "flow ended with an error: \(String(describing: error))")
        // A cancel is the user's own doing: nothing to tell them.
        if configuration.shouldAutoHandleFlowErrorFeedback, !Self.isCancellation(error) {
            unreportedError = error
            let strings = configuration.strings
            errorFeedback = FlowErrorFeedback(
                title: strings[.errorTitle], message: error.localizedDescription, dismissTitle: strings[.ok])
        } else {
            flowResult?.didReceiveError(error)
        }
    }

    private static func isCancellation(_ error: any Error) -> Bool {
        if case .flowCancelled? = error as? HaapiUIError { return true }
        return false
    }
}
