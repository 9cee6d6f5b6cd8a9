import TallyProtocol

/// `system.describe`: each service's commands, with their kind, who may call them and their JSON
/// Schemas, after NATS micro's `$SRV.INFO`. Tally's services are described by the catalog and
/// the schemas the binary embeds (the same files the contract test checks the services against);
/// a service of another worker by what its workers sent in READY, or by nothing but its name and
/// its live workers.
extension Broker {
    func describe(_ args: Arguments) throws(TallyError) -> SystemDescription {
        try args.allowOnly(["service", "command"])
        let command = try args.optionalString("command")
        var service = try args.optionalString("service")
        if let command {
            let owner = String(Envelope.service(of: command))
            if let service, service != owner {
                throw TallyError.invalidArgument(
                    "command '\(command)' belongs to service '\(owner)', not '\(service)'", field: args.field("command"))
            }
            service = owner
        }
        let known = describedServices()
        var chosen = known
        if let service {
            guard let one = known.first(where: { $0.name == service }) else {
                throw TallyError(
                    .notFound, "there is no service '\(service)'; this gateway knows \(known.map(\.name).joined(separator: ", "))",
                    field: args.field(command == nil ? "service" : "command"))
            }
            chosen = [one]
        }
        if let command, var one = chosen.first {
            guard let match = one.commands.first(where: { $0.name == command }) else {
                let listed = one.commands.isEmpty
                    ? "its workers did not describe their commands"
                    : "\(one.name) has \(one.commands.map(\.name).joined(separator: ", "))"
                throw TallyError(.notFound, "there is no command '\(command)'; \(listed)", field: args.field("command"))
            }
            one.commands = [match]
            chosen = [one]
        }
        let schemas = chosen.flatMap(\.commands).flatMap { [$0.argsSchema, $0.resultSchema].compactMap { $0 } }
        return SystemDescription(services: chosen, schemas: configuration.schemas.referenced(from: schemas))
    }

    /// Every service this gateway knows, sorted by name: the catalog's (the gateway's own
    /// included) and every one a worker has registered.
    private func describedServices() -> [SystemDescription.Service] {
        let catalog = configuration.catalog
        let names = catalog.services.union(services.keys).sorted()
        return names.map { name in
            let workers = CommandCatalog.gatewayServices.contains(name) ? nil : services[name]?.liveWorkers ?? 0
            let listed = catalog.commands.filter { $0.service == name }
            if !listed.isEmpty {
                return .init(
                    name: name, workers: workers, describedBy: "catalog",
                    commands: listed.map { DescribedCommand($0, schemas: configuration.schemas) })
            }
            if let description = services[name]?.description {
                return .init(name: name, workers: workers, describedBy: "worker", commands: description.commands)
            }
            return .init(name: name, workers: workers, describedBy: "none", commands: [])
        }
    }
}

/// `system.describe`'s result (`schemas/commands/system.describe.result.json`).
public struct SystemDescription: Codable, Sendable {
    public struct Service: Codable, Sendable {
        public let name: String
        /// Live workers; nil for the gateway's own services.
        public let workers: Int?
        /// Who described the commands: `catalog`, `worker`, or `none`.
        public let describedBy: String
        public var commands: [DescribedCommand]
    }

    public let services: [Service]
    /// The schemas that the commands' schemas refer to, by `$id`.
    public let schemas: [String: JSONValue]
}
