#if canImport(SwiftUI) && canImport(UIKit)
import SwiftUI
import UIKit

/// The flow screen: draws the view model's current step and sends the user's choices back to it.
public struct HaapiFlowView: View {
    @ObservedObject var viewModel: HaapiFlowViewModel
    let deepLinks: any HaapiDeepLinkManageable
    @State private var started = false

    public var body: some View {
        let theme = viewModel.haapiUIKitApplication.theme
        ZStack {
            theme.color(
                theme.string("backgroundColorName", in: "HaapiFlowViewController") ?? "hui_background",
                fallback: Color(.systemBackground)
            )
            .ignoresSafeArea()
            ScrollView {
                VStack(alignment: .leading, spacing: 16) {
                    if let tabs = viewModel.authenticatorTabs {
                        // `.tabs`: the authenticators as a segmented bar; the selected one's screen below.
                        Picker(
                            "",
                            selection: Binding(
                                get: { tabs.selectedIndex },
                                set: { index in Task { await viewModel.selectTab(index) } })
                        ) {
                            ForEach(Array(tabs.options.enumerated()), id: \.offset) { index, option in
                                Text(option.title).tag(index)
                            }
                        }
                        .pickerStyle(.segmented)
                    }
                    if let model = viewModel.uiModel {
                        StepHeader(model: model, theme: theme)
                        StepContent(model: model, viewModel: viewModel, deepLinks: deepLinks)
                        LinksView(links: model.links, theme: theme) { link in Task { await viewModel.followLink(link) }
                        }
                    }
                }
                .padding()
            }
            if viewModel.isLoading { ProgressView().progressViewStyle(.circular) }
        }
        .task {
            guard !started else { return }
            started = true
            await viewModel.start()
        }
        .alert(
            viewModel.errorFeedback?.title ?? "",
            isPresented: Binding(
                get: { viewModel.errorFeedback != nil },
                set: { shown in if !shown { viewModel.acknowledgeErrorFeedback() } }
            )
        ) {
            Button(viewModel.errorFeedback?.dismissTitle ?? "OK") { viewModel.acknowledgeErrorFeedback() }
        } message: {
            Text(viewModel.errorFeedback?.message ?? "")
        }
    }
}

struct StepHeader: View {
    let model: HaapiUIModel
    let theme: ThemeRegistry

    var body: some View {
        VStack(alignment: .leading, spacing: 8) {
            if let title = model.title {
                Text(title).themed(theme, "HaapiFlowViewController", key: "titleTextAppearance")
            }
            ForEach(Array((model.messages + model.problemMessages).enumerated()), id: \.offset) { _, message in
                Text(message.text).themed(theme, Self.style(for: message.kind))
            }
        }
    }

    static func style(for kind: MessageUIModel.Kind) -> String {
        switch kind {
        case .error: "MessageView.Error"
        case .warning: "MessageView.Warning"
        default: "MessageView.Info"
        }
    }
}

struct StepContent: View {
    let model: HaapiUIModel
    @ObservedObject var viewModel: HaapiFlowViewModel
    let deepLinks: any HaapiDeepLinkManageable

    var body: some View {
        let theme = viewModel.haapiUIKitApplication.theme
        switch model.content {
        case .selector(let options):
            SelectorView(options: options, theme: theme) { option in Task { await viewModel.select(option) } }
        case .forms(let forms), .consent(let forms):
            ForEach(Array(forms.enumerated()), id: \.offset) { index, form in
                FormView(form: form, isPrimary: index == 0, theme: theme) { values in
                    Task { await viewModel.submit(form, values: values) }
                }
            }
        case .polling(let polling):
            PollingView(polling: polling, theme: theme) { Task { await viewModel.cancelPolling() } }
        case .clientOperation(let operation):
            ClientOperationView(operation: operation, viewModel: viewModel, deepLinks: deepLinks)
        case .unsupported:
            Text("This step cannot be shown.").themed(theme, "MessageView.Error")
        }
    }
}

struct SelectorView: View {
    let options: [SelectorOptionUIModel]
    let theme: ThemeRegistry
    let choose: (SelectorOptionUIModel) -> Void

    var body: some View {
        VStack(spacing: CGFloat(theme.number("spacing", in: "SelectorView") ?? 12)) {
            ForEach(Array(options.enumerated()), id: \.offset) { _, option in
                Button {
                    choose(option)
                } label: {
                    Label {
                        Text(option.title)
                    } icon: {
                        // The app's asset of that name, else the kit's symbol (ThemeAssets).
                        if let icon = theme.image(
                            theme.string("iconName", in: "SelectorView") ?? "hui_ic_authenticator_user")
                        {
                            Image(uiImage: icon)
                        }
                    }
                    .frame(maxWidth: .infinity, alignment: .leading)
                }
                .buttonStyle(ThemedButtonStyle(theme: theme, style: "ActionableButton.Secondary"))
            }
        }
    }
}

struct FormView: View {
    let form: FormUIModel
    let isPrimary: Bool
    let theme: ThemeRegistry
    let submit: ([String: any Sendable]) -> Void
    @State private var values: [String: String] = [:]
    @State private var checked: [String: Bool] = [:]

    var body: some View {
        VStack(alignment: .leading, spacing: 12) {
            ForEach(Array(form.visibleFields.enumerated()), id: \.offset) { _, field in
                VStack(alignment: .leading, spacing: 4) {
                    fieldView(field)
                    if let problem = field.problem { Text(problem).themed(theme, "MessageView.Error") }
                }
            }
            Button(form.submitTitle) {
                var sent: [String: any Sendable] = [:]
                for (name, value) in values { sent[name] = value }
                for (name, on) in checked where on { sent[name] = "on" }
                submit(sent)
            }
            .buttonStyle(
                ThemedButtonStyle(
                    theme: theme, style: isPrimary ? "ActionableButton.Primary" : "ActionableButton.Secondary"))
        }
    }

    @ViewBuilder
    private func fieldView(_ field: FieldUIModel) -> some View {
        let label = field.label ?? field.name
        let binding = Binding(get: { values[field.name] ?? field.value ?? "" }, set: { values[field.name] = $0 })
        switch field.kind {
        case .password:
            SecureField(label, text: binding).textContentType(.password).textFieldStyle(.roundedBorder)
        case .username:
            TextField(label, text: binding).textContentType(.username).textInputAutocapitalization(.never)
                .textFieldStyle(.roundedBorder)
        case .select(let options):
            Picker(label, selection: binding) {
                ForEach(Array(options.enumerated()), id: \.offset) { _, option in Text(option.label).tag(option.value) }
            }
        case .checkbox(let isChecked, let readonly):
            Toggle(label, isOn: Binding(get: { checked[field.name] ?? isChecked }, set: { checked[field.name] = $0 }))
                .disabled(readonly)
        case .text(let kind):
            TextField(field.placeholder ?? label, text: binding)
                .keyboardType(
                    kind == .email
                        ? .emailAddress
                        : kind == .number ? .numberPad : kind == .tel ? .phonePad : kind == .url ? .URL : .default
                )
                .textInputAutocapitalization(.never)
                .textFieldStyle(.roundedBorder)
        case .hidden, .context:
            EmptyView()
        }
    }
}

struct PollingView: View {
    let polling: PollingUIModel
    let theme: ThemeRegistry
    let cancel: () -> Void

    var body: some View {
        VStack(spacing: 16) {
            ProgressView()
                .tint(
                    theme.color(
                        theme.string("spinnerColorName", in: "PollingView") ?? "hui_primary", fallback: .accentColor))
            if let deadline = polling.deadline {
                Text(deadline, style: .timer).themed(theme, "PollingView")
            }
            if polling.cancelAction != nil {
                Button("Cancel", action: cancel).buttonStyle(
                    ThemedButtonStyle(theme: theme, style: "ActionableButton.Secondary"))
            }
        }
        .frame(maxWidth: .infinity)
    }
}

/// Runs the operation the step asks for: the external browser (the configured `ExternalBrowserLauncher`:
/// an in-app browser session or the system browser), an app to open, or a passkey ceremony.
struct ClientOperationView: View {
    let operation: ClientOperationUIModel
    @ObservedObject var viewModel: HaapiFlowViewModel
    let deepLinks: any HaapiDeepLinkManageable

    var body: some View {
        let theme = viewModel.haapiUIKitApplication.theme
        let strings = viewModel.haapiUIKitApplication.haapiUIKitConfiguration.strings
        VStack(spacing: 12) {
            if operation.opensExternalApp {
                // The view model opened the app once by itself; this opens it again.
                Button(strings[.openApp]) { Task { await viewModel.launchExternalApp() } }
                    .buttonStyle(ThemedButtonStyle(theme: theme, style: "ActionableButton.Primary"))
            } else if operation.launchURL != nil {
                // The configured ExternalBrowserLauncher shows the page; the app's redirect resumes the flow.
                Button(strings[.continueAction]) { Task { await viewModel.openExternalBrowser(deepLinks: deepLinks) } }
                    .buttonStyle(ThemedButtonStyle(theme: theme, style: "ActionableButton.Primary"))
            } else if operation.name.hasPrefix("webauthn") {
                // The configured authenticator (PlatformAuthenticator for system passkeys) runs the ceremony.
                Button(operation.name == "webauthn-registration" ? "Create a passkey" : "Sign in with a passkey") {
                    Task { await viewModel.performPasskeyOperation() }
                }
                .buttonStyle(ThemedButtonStyle(theme: theme, style: "ActionableButton.Primary"))
            } else {
                Text("This device cannot run \(operation.name).").themed(theme, "MessageView.Error")
            }
            ForEach(Array(operation.errorForms.enumerated()), id: \.offset) { _, form in
                FormView(form: form, isPrimary: false, theme: theme) { values in
                    Task { await viewModel.submit(form, values: values) }
                }
            }
        }
    }
}

struct LinksView: View {
    let links: [LinkUIModel]
    let theme: ThemeRegistry
    let follow: (LinkUIModel) -> Void

    var body: some View {
        VStack(alignment: .leading, spacing: 8) {
            ForEach(Array(links.enumerated()), id: \.offset) { _, link in
                if link.isDataImage, let image = Self.image(link.href) {
                    Image(uiImage: image).interpolation(.none).resizable().scaledToFit().frame(maxWidth: 240)
                        .accessibilityLabel(link.title)
                } else if !link.isDataImage {
                    Button(link.title) { follow(link) }.buttonStyle(
                        ThemedButtonStyle(theme: theme, style: "ActionableButton.Link"))
                }
            }
        }
    }

    /// A `data:image/…;base64,…` link as an image (a QR code to scan with another device).
    static func image(_ href: String) -> UIImage? {
        guard let comma = href.firstIndex(of: ","), href[..<comma].hasSuffix(";base64"),
            let data = Data(base64Encoded: String(href[href.index(after: comma)...]))
        else { return nil }
        return UIImage(data: data)
    }
}
#endif
