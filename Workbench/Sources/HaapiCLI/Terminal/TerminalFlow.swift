import Dispatch
import Foundation
@_spi(Tooling) import HaapiUI

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Things `haapi demo` adds to a flow: showing the e-mail it "sent", approving on the "other device",
/// signing in through the browser page.
struct TerminalFlowHooks {
    /// Runs before the step is drawn.
    var beforeStep: (@MainActor (HaapiUIModel) async -> Void)?
    /// During polling: after `after` seconds, `prompt` is shown and Enter (or an `approve` answer) runs `act`.
    var pollingOffer: (after: TimeInterval, prompt: String, act: @MainActor () async -> Void)?
    /// For an external-browser step: signs in through the page and returns the URL it redirects to.
    var browserSignIn: (@MainActor (URL, _ userName: String, _ password: String) async -> URL?)?
}

/// The terminal renderer of `HaapiFlowViewModel`: draws each step, asks for what it needs (or takes it
/// from scripted answers), and returns how the flow ended.
@MainActor
final class TerminalFlow {
    enum Outcome {
        case tokens(OAuthTokenModel)
        case failed(any Error)
        case cancelled
    }

    let viewModel: HaapiFlowViewModel
    let io: TerminalIO
    let answers: FlowAnswers?
    let hooks: TerminalFlowHooks
    /// The last user name typed, for hooks that act on the user's behalf.
    private(set) var lastUserName: String?
    /// Whether this flow created a passkey (a webauthn-registration step that succeeded).
    private(set) var createdPasskey = false

    init(
        viewModel: HaapiFlowViewModel, io: TerminalIO = TerminalIO(), answers: FlowAnswers?,
        hooks: TerminalFlowHooks = TerminalFlowHooks()
    ) {
        self.viewModel = viewModel
        self.io = io
        self.answers = answers
        self.hooks = hooks
    }

    struct NeedsInput: Error, CustomStringConvertible {
        let description: String
    }

    /// A step the flow cannot go on from: nothing ends its wait, it offers no way on, or the one way it offers
    /// was just refused.
    struct DeadEnd: Error, CustomStringConvertible {
        let description: String
        /// The server refused the one way on (a problem answered it).
        var refused = false
    }

    func run() async -> Outcome {
        await busy { await viewModel.start() }
        var drawnRevision = -1
        while true {
            if let tokens = viewModel.oAuthModel as? OAuthTokenModel { return .tokens(tokens) }
            if let error = viewModel.error {
                // The terminal reports the failure itself (one line on stderr), so the alert model is dismissed.
                viewModel.acknowledgeErrorFeedback()
                if case .flowCancelled? = error as? HaapiUIError { return .cancelled }
                return .failed(error)
            }
            guard let model = viewModel.uiModel else { return .failed(HaapiUIError.unsupportedStep("nothing to show")) }
            if drawnRevision != viewModel.revision {
                drawnRevision = viewModel.revision
                await hooks.beforeStep?(model)
                draw(model)
            }
            do {
                switch model.content {
                case .selector(let options): try await choose(options)
                case .forms(let forms), .consent(let forms): try await fill(forms)
                case .polling(let polling):
                    switch polling.status {
                    case .pending:
                        // Without a poll action nothing can end the wait: say so rather than wait for ever.
                        guard polling.pollAction != nil else {
                            return .failed(
                                DeadEnd(
                                    description:
                                        "the server's waiting step has no poll action: nothing can end the wait"))
                        }
                        if await waitWhilePolling() == .cancelled { return .cancelled }
                    case .done:
                        guard (model.step as? PollingStep)?.mainAction != nil else {
                            return .failed(DeadEnd(description: "the server's wait is done but offers no way on"))
                        }
                        // The view model continues by itself; wait for what comes next.
                        await waitForChange(from: viewModel.revision)
                    default:
                        let reason = (model.messages + model.problemMessages).map(\.text).joined(separator: " ")
                        return .failed(
                            HaapiUIError.problem(
                                type: "polling \(polling.status.rawValue)", title: reason.isEmpty ? nil : reason))
                    }
                case .clientOperation(let operation): try await clientOperation(operation)
                case .unsupported(let raw): return .failed(HaapiUIError.unsupportedStep(String(raw.prefix(200))))
                }
            } catch {
                viewModel.cancel()
                return .failed(error)
            }
        }
    }

    // MARK: - Drawing

    private func draw(_ model: HaapiUIModel) {
        io.say()
        if let title = model.title { io.say(io.paint(title, .bold)) }
        for message in model.messages + model.problemMessages { io.say(paint(message)) }
        let links = model.links
        let followable = links.filter { !$0.isDataImage }
        for link in links where link.isQRCode {
            let size = link.href.count * 3 / 4 / 1024
            io.say(
                io.paint(
                    "  ▣ \(link.title): a QR code (\(link.link.mediaType ?? "image"), about \(max(size, 1)) KB) for signing in with another "
                        + "device. A terminal cannot show it; scan it from the app or web page, or choose another way to sign in.",
                    .dim))
        }
        // On a form step the links are choices (":N", below); elsewhere they are listed by title.
        if !followable.isEmpty, !model.isFormStep {
            io.say(io.paint("  Links: " + followable.map(\.title).joined(separator: "; "), .dim))
        }
        if case .forms(let forms) = model.content {
            for field in forms.flatMap(\.fields) where field.problem != nil {
                io.say(io.paint("  ✗ \(field.label ?? field.name): \(field.problem ?? "")", .red))
            }
        }
    }

    private func paint(_ message: MessageUIModel) -> String {
        switch message.kind {
        case .error: io.paint("  ✗ " + message.text, .red)
        case .warning: io.paint("  ! " + message.text, .yellow)
        case .heading: io.paint(message.text, .bold)
        case .info, .other: "  " + message.text
        }
    }

    // MARK: - Input

    private func ask(_ prompt: String, secret: Bool = false) async throws -> String {
        guard io.isInteractive || answers == nil else {
            throw NeedsInput(description: "the answers file has no answer for: \(prompt)")
        }
        guard let line = await io.readLine(prompt: prompt, secret: secret) else {
            throw NeedsInput(description: "input ended at: \(prompt)")
        }
        return line
    }

    /// Runs a request; on a terminal, a spinner appears if it takes longer than 0.3 s (never when piped).
    private func busy(_ operation: () async -> Void) async {
        guard io.useColor else { return await operation() }
        let spinner = Task { @MainActor [io] in
            try? await Task.sleep(nanoseconds: 300_000_000)
            var frame = 0
            while !Task.isCancelled {
                io.status(
                    io.paint(TerminalIO.spinnerFrames[frame % TerminalIO.spinnerFrames.count], .cyan) + " Working…")
                frame += 1
                try? await Task.sleep(nanoseconds: 100_000_000)
            }
        }
        await operation()
        spinner.cancel()
        _ = await spinner.value
        io.write("\r\u{1B}[K")
    }

    /// A numbered menu, asked until the answer is a number in range or a whole name (`Choice.pick`).
    private func menu<Item>(_ items: [Item], title: (Item) -> String, keys: (Item) -> [String]) async throws -> Item {
        for (index, item) in items.enumerated() { io.say("  \(io.paint("\(index + 1))", .cyan)) \(title(item))") }
        while true {
            if let item = Choice.pick(try await ask("Choose 1–\(items.count): "), from: items, keys: keys) {
                return item
            }
            io.say(io.paint("  Type a number from the list.", .yellow))
        }
    }

    private func rememberUserName(_ values: [String: any Sendable]) {
        if let name = values["userName"] as? String ?? values["username"] as? String { lastUserName = name }
    }

    private static func formKeys(_ form: FormUIModel) -> [String] { [form.submitTitle, form.kind, form.title ?? ""] }

    /// `1) A, 2) B` for a message that lists what a step offers.
    static func listed(_ items: [String]) -> String {
        items.isEmpty ? "nothing" : items.enumerated().map { "\($0.offset + 1)) \($0.element)" }.joined(separator: ", ")
    }

    private func choose(_ options: [SelectorOptionUIModel]) async throws {
        let keys: (SelectorOptionUIModel) -> [String] = { [$0.model.href, $0.type ?? "", $0.title] }
        if let scripted = answers?.next(ifHas: "choose")?["choose"]?.stringValue {
            for (index, option) in options.enumerated() {
                io.say("  \(io.paint("\(index + 1))", .cyan)) \(option.title)")
            }
            guard let option = Choice.pick(scripted, from: options, keys: keys) else {
                throw NeedsInput(
                    description:
                        "the answer {\"choose\": \"\(scripted)\"} fits no option; the step offers "
                        + Self.listed(
                            options.map { option in
                                let id = option.model.href.split(separator: "/").last.map(String.init)
                                return option.title + (id.map { " (\($0))" } ?? "")
                            }))
            }
            io.say("  → \(option.title)")
            await busy { await viewModel.select(option) }
            return
        }
        let option = try await menu(options, title: \.title, keys: keys)
        await busy { await viewModel.select(option) }
    }

    private func fill(_ forms: [FormUIModel]) async throws {
        if let scripted = answers?.next(ifHas: "fields") ?? answers?.next(ifHas: "action") {
            return try await fillScripted(forms, scripted)
        }
        // Several ways forward (sign in with a passkey, or create one): a menu, so none hides behind another.
        let mainForms = forms.filter { !Self.secondaryKinds.contains($0.kind) }
        if mainForms.count > 1 {
            let chosen = try await menu(mainForms, title: { $0.title ?? $0.submitTitle }, keys: Self.formKeys)
            var values: [String: any Sendable] = [:]
            for field in chosen.visibleFields { values[field.name] = try await prompt(field) }
            rememberUserName(values)
            await busy { await viewModel.submit(chosen, values: values) }
            return
        }
        guard let primary = forms.first(where: { !$0.visibleFields.isEmpty }) else {
            // Only buttons (consent, a "continue"): one is pressed for the user, several are a menu. Not again
            // when the server has just refused it: that would go round for ever.
            if forms.count == 1, let refusal = viewModel.uiModel?.problemMessages, !refusal.isEmpty {
                throw DeadEnd(description: refusal.map(\.text).joined(separator: " "), refused: true)
            }
            if forms.count == 1, let only = forms.first {
                io.say("  → \(only.submitTitle)")
                await busy { await viewModel.submit(only) }
                return
            }
            let chosen = try await menu(forms, title: \.submitTitle, keys: Self.formKeys)
            await busy { await viewModel.submit(chosen) }
            return
        }
        // The form with fields is asked for; the other actions (resend, back, …) can be taken instead with ":N".
        let others = forms.enumerated().filter {
            $0.element.model.href != primary.model.href || $0.element.submitTitle != primary.submitTitle
        }
        // The step's links (forgot password, create account) are followable the same way, numbered after the forms.
        let links = (viewModel.uiModel?.links ?? []).filter { !$0.isDataImage }
        let choices =
            others.map { ":\($0.offset + 1) \($0.element.submitTitle)" }
            + links.enumerated().map { ":\(forms.count + $0.offset + 1) \($0.element.title)" }
        if !choices.isEmpty {
            io.say(io.paint("  Or instead (type it at any prompt): " + choices.joined(separator: ", "), .dim))
        }
        var values: [String: any Sendable] = [:]
        for field in primary.visibleFields {
            let value = try await prompt(field)
            if let text = value as? String, text.hasPrefix(":"), let number = Int(text.dropFirst()),
                links.indices.contains(number - forms.count - 1)
            {
                let link = links[number - forms.count - 1]
                io.say("  → \(link.title)")
                await busy { await viewModel.followLink(link) }
                return
            }
            if let text = value as? String, text.hasPrefix(":"), let number = Int(text.dropFirst()),
                forms.indices.contains(number - 1)
            {
                let alternative = forms[number - 1]
                io.say("  → \(alternative.submitTitle)")
                var alternativeValues: [String: any Sendable] = [:]
                for field in alternative.visibleFields { alternativeValues[field.name] = try await prompt(field) }
                await busy { await viewModel.submit(alternative, values: alternativeValues) }
                return
            }
            values[field.name] = value
        }
        rememberUserName(values)
        await busy { await viewModel.submit(primary, values: values) }
    }

    /// Form kinds that are a side way of the step (send the code again, give up), offered with ":N".
    static let secondaryKinds: Set<String> = ["resend", "cancel", "back", "redirect", "continue"]

    private func fillScripted(_ forms: [FormUIModel], _ scripted: JSONObject) async throws {
        var form = forms.first
        if forms.count > 1, let wanted = scripted["action"]?.stringValue ?? scripted["choose"]?.stringValue {
            form = Choice.pick(wanted, from: forms, keys: Self.formKeys)
        } else if forms.count > 1 {
            form = forms.first { !$0.visibleFields.isEmpty } ?? forms.first
        }
        guard let form else {
            let wanted = scripted["action"]?.stringValue ?? scripted["choose"]?.stringValue ?? ""
            throw NeedsInput(
                description:
                    "the answer {\"action\": \"\(wanted)\"} fits no action; the step offers "
                    + Self.listed(forms.map { $0.title ?? $0.submitTitle }))
        }
        var values: [String: any Sendable] = [:]
        let fields = scripted["fields"]?.objectValue ?? [:]
        let asked = Set(form.visibleFields.map(\.name))
        if let stray = fields.keys.first(where: { !asked.contains($0) }) {
            throw NeedsInput(
                description:
                    "the answer's field \"\(stray)\" is not in the form “\(form.title ?? form.submitTitle)”, which asks for "
                    + Self.listed(
                        form.visibleFields.map { field in field.label.map { "\(field.name) (\($0))" } ?? field.name }))
        }
        for field in form.visibleFields {
            if let value = fields[field.name] {
                values[field.name] = value.stringValue ?? value.boolValue.map { $0 ? "on" : "" } ?? value.serialized()
            }
        }
        rememberUserName(values)
        io.say("  → \(form.submitTitle)")
        await busy { await viewModel.submit(form, values: values) }
    }

    private func prompt(_ field: FieldUIModel) async throws -> (any Sendable)? {
        let label = field.label ?? field.name
        switch field.kind {
        case .select(let options):
            for (index, option) in options.enumerated() {
                io.say("    \(index + 1)) \(option.label)\(option.selected ? " (default)" : "")")
            }
            while true {
                let line = try await ask("  \(label) [1–\(options.count)]: ")
                if line.isEmpty { return options.first(where: \.selected)?.value }
                if let option = Choice.pick(line, from: options, keys: { [$0.label, $0.value] }) {
                    return option.value
                }
                io.say(io.paint("  Type a number from the list.", .yellow))
            }
        case .checkbox(let checked, let readonly):
            if readonly { return checked ? "on" : nil }
            let line = try await ask("  \(label) [\(checked ? "Y/n" : "y/N")]: ")
            let yes = line.isEmpty ? checked : line.lowercased().hasPrefix("y")
            return yes ? "on" : nil
        case .password:
            return try await ask("  \(label): ", secret: true)
        default:
            let hint = field.value.map { " [\($0)]" } ?? ""
            let line = try await ask("  \(label)\(hint): ")
            return line.isEmpty ? field.value : line
        }
    }

    private enum PollingEnd { case changed, cancelled }

    /// Returns once the view model has a new step, a problem, tokens or an error; says so meanwhile when it waits
    /// through a bad network (the continue action of a step that opened another app).
    private func waitForChange(from revision: Int) async {
        let changes = viewModel.changes()
        guard hasChanged(since: revision) == false else { return }
        var reported = 0
        for await _ in changes {
            if hasChanged(since: revision) { return }
            if let reconnecting = viewModel.reconnecting, reconnecting.attempt != reported {
                reported = reconnecting.attempt
                io.say("  " + io.paint(Self.reconnectingLine(reconnecting), .yellow))
            }
        }
    }

    private func hasChanged(since revision: Int) -> Bool {
        viewModel.revision != revision || viewModel.oAuthModel != nil || viewModel.error != nil
    }

    /// Whether the view model is still waiting on a pending polling step (new poll answers keep it so).
    private var isStillPolling: Bool {
        guard viewModel.oAuthModel == nil, viewModel.error == nil,
            case .polling(let polling)? = viewModel.uiModel?.content
        else { return false }
        return polling.status == .pending && viewModel.uiModel?.problemMessages.isEmpty != false
    }

    /// What the polling wait reacts to.
    private enum PollingEvent: Sendable {
        /// The view model changed: a new poll answer, another step, tokens or an error.
        case changed
        /// Ctrl-C.
        case interrupted
        /// The spinner's next frame, the approval offer's clock and the keyboard.
        case tick
    }

    /// Shows a spinner while the step stays a pending poll; Ctrl-C sends the cancel action.
    private func waitWhilePolling() async -> PollingEnd {
        let (events, sink) = AsyncStream.makeStream(of: PollingEvent.self, bufferingPolicy: .bufferingNewest(8))
        signal(SIGINT, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .main)
        source.setEventHandler { sink.yield(.interrupted) }
        source.resume()
        let changes = viewModel.changes()
        let forwarder = Task {
            for await _ in changes { sink.yield(.changed) }
        }
        let ticker = Task {
            while !Task.isCancelled {
                try? await Task.sleep(nanoseconds: 100_000_000)
                sink.yield(.tick)
            }
        }
        defer {
            source.cancel()
            signal(SIGINT, SIG_DFL)
            forwarder.cancel()
            ticker.cancel()
            sink.finish()
        }
        let began = Date()
        var offered = false
        var frame = 0
        if !io.useColor { io.say("  Waiting… (Ctrl-C cancels)") }
        if answers?.next(ifHas: "cancel") != nil {
            await viewModel.cancelPolling()
            return .cancelled
        }
        var reported = 0
        waiting: for await event in events {
            guard isStillPolling else { break waiting }
            switch event {
            case .changed:
                // Each failed poll the view model waits through, once, in words (a spinner line redraws it too).
                if let reconnecting = viewModel.reconnecting, reconnecting.attempt != reported {
                    reported = reconnecting.attempt
                    if !io.useColor { io.say("  " + Self.reconnectingLine(reconnecting)) }
                }
                continue
            case .interrupted:
                io.write(io.useColor ? "\r\u{1B}[K" : "")
                io.say(io.paint("  Cancelling…", .yellow))
                await viewModel.cancelPolling()
                return .cancelled
            case .tick:
                if let offer = hooks.pollingOffer, !offered, Date().timeIntervalSince(began) >= offer.after {
                    offered = true
                    if answers?.next(ifHas: "approve") != nil {
                        await offer.act()
                    } else if io.isInteractive {
                        io.write(io.useColor ? "\r\u{1B}[K" : "")
                        io.say("  " + offer.prompt)
                    }
                }
                if offered, io.isInteractive, let offer = hooks.pollingOffer, await LineReader.shared.poll() != nil {
                    await offer.act()
                }
                if io.useColor {
                    drawPollingSpinner(frame: frame)
                    frame += 1
                }
            }
        }
        if io.useColor { io.write("\r\u{1B}[K") }
        return .changed
    }

    private func drawPollingSpinner(frame: Int) {
        var remaining = ""
        if case .polling(let polling)? = viewModel.uiModel?.content, let deadline = polling.deadline {
            remaining = " \(max(0, Int(deadline.timeIntervalSinceNow))) s left"
        }
        let spinner = io.paint(TerminalIO.spinnerFrames[frame % TerminalIO.spinnerFrames.count], .cyan)
        if let reconnecting = viewModel.reconnecting {
            io.status("  \(spinner) " + io.paint(Self.reconnectingLine(reconnecting), .yellow) + " (Ctrl-C cancels)")
        } else {
            io.status("  \(spinner) Waiting…\(remaining) (Ctrl-C cancels)")
        }
    }

    /// "Reconnecting, 2 polls failed: <why>. Next poll in 3 s."
    static func reconnectingLine(_ reconnecting: PollingReconnection) -> String {
        let next = max(0, Int(reconnecting.nextPoll.timeIntervalSinceNow.rounded(.up)))
        let failed = reconnecting.attempt == 1 ? "a poll failed" : "\(reconnecting.attempt) polls failed"
        return "Reconnecting, \(failed): \(reconnecting.reason) Next poll in \(next) s."
    }

    private func clientOperation(_ operation: ClientOperationUIModel) async throws {
        if operation.name.hasPrefix("webauthn") {
            io.say(
                "  🔑 "
                    + (operation.name == "webauthn-registration" ? "Creating a passkey" : "Signing with your passkey")
                    + " (software authenticator)…")
            let registering = operation.name == "webauthn-registration"
            if await viewModel.performPasskeyOperation() {
                if registering { createdPasskey = true }
            } else if viewModel.error == nil {
                io.say(io.paint("  The passkey could not be used; going back.", .yellow))
            }
            return
        }
        if operation.opensExternalApp {
            guard operation.continueForm != nil else {
                // Nothing to continue with once the app is open: the step's other ways, or a clear end.
                guard !operation.errorForms.isEmpty else {
                    throw DeadEnd(
                        description: "the \(operation.name) step opens the app but offers no way to go on from it")
                }
                io.say("  The step offers no way to continue from the app; instead:")
                try await fill(operation.errorForms)
                return
            }
            // The view model opened it (the terminal's opener prints the link) and goes on with the flow.
            await waitForChange(from: viewModel.revision)
            return
        }
        guard let url = operation.launchURL else {
            throw HaapiUIError.unsupportedStep("client operation \(operation.name) (a terminal cannot run it)")
        }
        io.say("  Open this address in a browser and sign in:")
        io.say("    " + io.paint(url.absoluteString, .cyan))
        if let scripted = answers?.next(ifHas: "resumeUrl")?["resumeUrl"]?.stringValue {
            guard let resume = URL(string: scripted), await viewModel.resumeExternalBrowser(with: resume) else {
                throw NeedsInput(description: "the scripted resumeUrl does not resume this flow")
            }
            return
        }
        if let login = answers?.next(ifHas: "browserLogin")?["browserLogin"], let signIn = hooks.browserSignIn {
            guard
                let resume = await signIn(
                    url, login["userName"]?.stringValue ?? "", login["password"]?.stringValue ?? ""),
                await viewModel.resumeExternalBrowser(with: resume)
            else { throw NeedsInput(description: "the browser sign-in did not succeed") }
            return
        }
        while true {
            let hint =
                hooks.browserSignIn == nil
                ? "" : " (or press Enter and the demo signs in through that page as demouser)"
            let line = try await ask("  Paste the address the browser was sent to\(hint): ")
            if line.isEmpty, let signIn = hooks.browserSignIn, let resume = await signIn(url, "demouser", "Password1") {
                io.say("  → signed in through the page; it sent the browser to \(resume.scheme ?? "app")://…")
                if await viewModel.resumeExternalBrowser(with: resume) { return }
            }
            if let resume = URL(string: line.trimmingCharacters(in: .whitespaces)),
                await viewModel.resumeExternalBrowser(with: resume)
            {
                return
            }
            io.say(
                io.paint(
                    "  That address is not the app's redirect URI with the flow's resume nonce; try again.", .yellow))
        }
    }
}
