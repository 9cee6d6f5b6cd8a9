import TallyProtocol

/// What a worker connection's CURVE key allows, as the ZAP handler told libzmq when it admitted
/// the key: its name (User-Id) and the services it may register for
/// (`Majordomo.workerServicesProperty`). A connection without the property may serve nothing.
struct WorkerPermit: Sendable, Equatable {
    let name: String
    /// nil: any service.
    let services: Set<String>?

    init(properties: [String: String]) {
        name = properties["User-Id"] ?? "-"
        switch properties[Majordomo.workerServicesProperty] {
        case "*": services = nil
        case let list?: services = Set(list.split(separator: ",").map(String.init))
        case nil: services = []
        }
    }

    func allows(_ service: String) -> Bool { services?.contains(service) ?? true }

    var allowedDescription: String { services.map { $0.sorted().joined(separator: ",") } ?? "*" }
}
