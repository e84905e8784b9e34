import Foundation

/// Turns decoded steps into `HaapiUIModel`s, and attaches a problem to the model it answers.
enum UIModelMapper {
    static func model(
        for step: any HaapiRepresentation, configuration: HaapiUIKitConfiguration, now: Date,
        pollingDeadline: Date?
    ) -> HaapiUIModel {
        let forms = step.actions.compactMap { $0 as? FormAction }.map(form)
        let content: HaapiUIModel.Content
        switch step {
        case let selector as AuthenticatorSelectorStep:
            content = .selector(
                selector.authenticators.map {
                    SelectorOptionUIModel(
                        title: $0.title?.description ?? $0.action.model.href, type: $0.type, model: $0.action.model)
                })
        case let polling as PollingStep:
            // The server's recommendation is in milliseconds (docs/WIRE-DECISIONS.md); it wins over the configured default.
            let serverInterval = polling.pollingProperties.interval.map { TimeInterval($0) / 1000 }
            content = .polling(
                PollingUIModel(
                    status: polling.status, recipient: polling.pollingProperties.recipientOfCommunication,
                    interval: serverInterval ?? configuration.autoPollingDuration,
                    pollAction: polling.pollAction?.model,
                    cancelAction: polling.cancelAction?.model, deadline: pollingDeadline,
                    appLaunchURL: (polling.clientOperation?.model as? BankIdClientOperationActionModel).flatMap(
                        ExternalAppLaunch.bankIDURL)))
        case let consent as UserConsentStep:
            content = .consent(consent.formActions.map(form))
        case let operation as any ClientOperationStep:
            var launch = ExternalAppLaunch.url(for: operation)
            let opensApp = launch != nil
            if let browser = operation as? ExternalBrowserClientOperationStep {
                launch = browser.urlToLaunch(redirectTo: configuration.appRedirect)
            }
            content = .clientOperation(
                ClientOperationUIModel(
                    name: operation.clientOperationAction.model.name.rawValue, launchURL: launch,
                    opensExternalApp: opensApp,
                    continueForm: operation.continueFormActionModel,
                    errorForms: operation.errorActions.compactMap { $0 as? FormAction }.map(form), step: operation))
        default:
            content = forms.isEmpty ? .unsupported(rawJSON: step.rawJSONString) : .forms(forms)
        }
        let title = step.actions.first?.title?.description
        return HaapiUIModel(
            title: title, messages: step.messages.map(message), links: step.links.map(link), content: content,
            step: step)
    }

    static func form(_ action: FormAction) -> FormUIModel {
        let model = action.model
        let submit =
            model.actionTitle?.description ?? model.title?.description ?? action.title?.description ?? "Continue"
        return FormUIModel(
            title: action.title?.description, kind: action.kind.rawValue, fields: model.fields.map(field),
            submitTitle: submit, model: model)
    }

    static func field(_ field: any FormField) -> FieldUIModel {
        let kind: FieldUIModel.Kind
        switch field {
        case is HiddenFormField: kind = .hidden
        case is ContextFormField: kind = .context
        case is UsernameFormField: kind = .username
        case is PasswordFormField: kind = .password
        case let select as SelectFormField:
            kind = .select(
                select.options.map { .init(label: $0.label.description, value: $0.value, selected: $0.selected) })
        case let checkbox as CheckboxFormField:
            kind = .checkbox(checked: checkbox.checked, readonly: checkbox.readonly)
        case let text as TextFormField:
            switch text.kind {
            case .email?: kind = .text(.email)
            case .tel?: kind = .text(.tel)
            case .number?: kind = .text(.number)
            case .url?: kind = .text(.url)
            case nil: kind = .text(.plain)
            default: kind = .text(.other)
            }
        default:
            kind = .text(.plain)
        }
        return FieldUIModel(
            name: field.name, label: field.label?.description, placeholder: field.placeholder, value: field.value,
            kind: kind)
    }

    static func message(_ message: UserMessage) -> MessageUIModel {
        MessageUIModel(text: message.text.description, classList: message.classList)
    }

    static func link(_ link: Link) -> LinkUIModel {
        LinkUIModel(
            title: link.title?.description ?? link.rel, rel: link.rel, href: link.href, isDataImage: link.isDataLink,
            link: link)
    }

    /// The model with the problem shown: invalid-input details on the fields they name, the rest as messages.
    /// A continue-same-step without actions of its own ("a new code has been sent"): the screen stays, with
    /// the step's messages shown where a problem's would be.
    static func attach(_ same: ContinueSameStep, to model: HaapiUIModel) -> HaapiUIModel {
        var updated = model
        updated.problemMessages = same.messages.map(message)
        return updated
    }

    static func attach(_ problem: any ProblemRepresentation, to model: HaapiUIModel) -> HaapiUIModel {
        var updated = model
        var general: [MessageUIModel] = []
        if let title = problem.title?.description, !title.isEmpty {
            general.append(MessageUIModel(text: title, classList: ["error"]))
        }
        general += problem.messages.map(message).map {
            MessageUIModel(text: $0.text, classList: $0.classList.isEmpty ? ["error"] : $0.classList)
        }
        if let invalid = problem as? InvalidInputProblem, case .forms(let forms) = model.content {
            var named = Set<String>()
            let marked = forms.map { form -> FormUIModel in
                var fields = form.fields
                for index in fields.indices {
                    let matches = invalid.invalidFields(named: fields[index].name)
                    guard let first = matches.first else { continue }
                    named.insert(fields[index].name)
                    fields[index].problem = first.detail?.description ?? first.reason ?? "invalid value"
                }
                return FormUIModel(
                    title: form.title, kind: form.kind, fields: fields, submitTitle: form.submitTitle, model: form.model
                )
            }
            updated = HaapiUIModel(
                title: model.title, messages: model.messages, links: model.links, content: .forms(marked),
                step: model.step)
            for field in invalid.invalidFields where !named.contains(field.name) {
                general.append(
                    MessageUIModel(
                        text: "\(field.name): \(field.detail?.description ?? field.reason ?? "invalid")",
                        classList: ["error"]))
            }
        }
        updated.problemMessages = general
        return updated
    }
}
