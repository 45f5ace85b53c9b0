#include "sessiontreemodel.h"
#include "common/bytesize.h"
#include "common/shortid.h"

#include "common/inerttext.h"

#include <QLocale>

#include <QColor>
#include <QFont>
#include <QGuiApplication>
#include <QIcon>
#include <QLoggingCategory>
#include <QPainter>
#include <QPixmap>
#include <QUrl>

#include <algorithm>

Q_LOGGING_CATEGORY(lcSessionModel, "clusterdeck.ui.sessions.model")

namespace ClusterDeck::Ui {

struct SessionTreeModel::SessionInfo
{
    SessionRecord record;
    SessionStatus shown = SessionStatus::Pending;
    QString summary;       // "14 kernels: master×2, worker×12"
    QStringList hosts;     // registered hosts used, sorted
    QStringList hostnames; // in rank order
    const Node *primary = nullptr;
    int kernelCount = 0;
};

struct SessionTreeModel::Node
{
    enum class Kind { Root, Session, Role, Kernel } kind = Kind::Root;
    Node *parent = nullptr;
    std::vector<std::unique_ptr<Node>> children;
    int row = 0; // index in parent->children, kept up to date
    QString id;  // session id, role name, or kernel id

    std::unique_ptr<SessionInfo> session; // Kind::Session
    std::unique_ptr<KernelRecord> kernel; // Kind::Kernel
    // Kind::Role aggregates
    int minRank = 0;
    SessionStatus roleStatus = SessionStatus::Pending;
    QStringList roleHosts;

    void renumberFrom(int first)
    {
        for (int i = first; i < int(children.size()); ++i)
            children[size_t(i)]->row = i;
    }
};

namespace {

constexpr int kLastColumn = SessionTreeModel::ColumnCount - 1;

// The colour family a status is drawn in; session, role and kernel statuses share them.
enum class StatusTone { Waiting, Healthy, Degraded, Failed, Busy, Ended, Succeeded, Unknown };

StatusTone toneOf(SessionStatus status)
{
    switch (status) {
    case SessionStatus::Pending:
    case SessionStatus::Provisioning:
        return StatusTone::Waiting;
    case SessionStatus::Running:
        return StatusTone::Healthy;
    case SessionStatus::Degraded:
        return StatusTone::Degraded;
    case SessionStatus::Error:
        return StatusTone::Failed;
    case SessionStatus::Restarting:
    case SessionStatus::Terminating:
        return StatusTone::Busy;
    case SessionStatus::Terminated:
    case SessionStatus::Cancelled:
        return StatusTone::Ended;
    case SessionStatus::Completed:
        return StatusTone::Succeeded;
    }
    return StatusTone::Waiting;
}

StatusTone toneOf(KernelStatus status)
{
    switch (status) {
    case KernelStatus::Pending:
    case KernelStatus::Scheduled:
    case KernelStatus::Preparing:
    case KernelStatus::Creating:
        return StatusTone::Waiting;
    case KernelStatus::Running:
        return StatusTone::Healthy;
    case KernelStatus::Error:
        return StatusTone::Failed;
    case KernelStatus::Restarting:
    case KernelStatus::Terminating:
        return StatusTone::Busy;
    case KernelStatus::Terminated:
    case KernelStatus::Cancelled:
        return StatusTone::Ended;
    case KernelStatus::Unknown:
        return StatusTone::Unknown;
    }
    return StatusTone::Waiting;
}

QColor toneColor(StatusTone tone)
{
    switch (tone) {
    case StatusTone::Waiting:
        return QColor(0x3b, 0x82, 0xc4);
    case StatusTone::Healthy:
        return QColor(0x2e, 0x9d, 0x48);
    case StatusTone::Degraded:
        return QColor(0xe0, 0x6c, 0x1c);
    case StatusTone::Failed:
        return QColor(0xcc, 0x33, 0x33);
    case StatusTone::Busy:
        return QColor(0xd9, 0x9a, 0x1c);
    case StatusTone::Ended:
        return QColor(0x8a, 0x8a, 0x8a);
    case StatusTone::Succeeded:
        return QColor(0x1f, 0x6f, 0x3a);
    case StatusTone::Unknown:
        return QColor(0x9b, 0x59, 0xb6);
    }
    return QColor(0x3b, 0x82, 0xc4);
}

QIcon statusIcon(StatusTone tone)
{
    static QHash<int, QIcon> cache;
    auto it = cache.constFind(int(tone));
    if (it != cache.constEnd())
        return *it;
    QPixmap pixmap(16, 16);
    pixmap.fill(Qt::transparent);
    {
        QPainter painter(&pixmap);
        painter.setRenderHint(QPainter::Antialiasing);
        const QColor color = toneColor(tone);
        painter.setPen(QPen(color.darker(130), 1));
        painter.setBrush(color);
        painter.drawEllipse(QRectF(2.5, 2.5, 11, 11));
    }
    QIcon icon(pixmap);
    cache.insert(int(tone), icon);
    return icon;
}

bool kernelLess(const KernelRecord &a, const KernelRecord &b)
{
    if (a.localRank != b.localRank)
        return a.localRank < b.localRank;
    return a.roleIdx < b.roleIdx;
}

} // namespace

SessionTreeModel::SessionTreeModel(QObject *parent)
    : QAbstractItemModel(parent)
    , m_root(std::make_unique<Node>())
{}

SessionTreeModel::~SessionTreeModel() = default;

// ---- feeding -------------------------------------------------------------------------------

void SessionTreeModel::setSessions(const QList<SessionRecord> &sessions,
                                   const QHash<QString, QList<KernelRecord>> &kernelsBySession)
{
    beginResetModel();
    m_root->children.clear();
    m_sessions.clear();
    m_kernels.clear();
    m_sessions.reserve(sessions.size());
    qsizetype total = 0;
    for (const QList<KernelRecord> &list : kernelsBySession)
        total += list.size();
    m_kernels.reserve(total);
    m_root->children.reserve(size_t(sessions.size()));
    for (const SessionRecord &s : sessions) {
        if (m_sessions.contains(s.id))
            continue;
        Node *node = buildSessionNode(s, kernelsBySession.value(s.id));
        node->parent = m_root.get();
        node->row = int(m_root->children.size());
        m_root->children.emplace_back(node);
        indexSessionNode(node);
    }
    endResetModel();
}

void SessionTreeModel::clear()
{
    setSessions({}, {});
}

void SessionTreeModel::upsertSession(const SessionRecord &session)
{
    if (Node *node = m_sessions.value(session.id)) {
        node->session->record = session;
        refreshSession(node, true);
        return;
    }
    upsertSession(session, {});
}

void SessionTreeModel::upsertSession(const SessionRecord &session,
                                     const QList<KernelRecord> &kernels)
{
    if (Node *node = m_sessions.value(session.id)) {
        node->session->record = session;
        syncKernels(node, kernels);
        refreshSession(node, true);
        return;
    }
    const int row = int(m_root->children.size());
    beginInsertRows({}, row, row);
    Node *node = buildSessionNode(session, kernels);
    node->parent = m_root.get();
    node->row = row;
    m_root->children.emplace_back(node);
    indexSessionNode(node);
    endInsertRows();
}

void SessionTreeModel::removeSession(const QString &sessionId)
{
    Node *node = m_sessions.value(sessionId);
    if (!node)
        return;
    const int row = node->row;
    beginRemoveRows({}, row, row);
    unindexSessionNode(node);
    m_root->children.erase(m_root->children.begin() + row);
    m_root->renumberFrom(row);
    endRemoveRows();
}

void SessionTreeModel::updateKernel(const KernelRecord &kernel)
{
    if (Node *node = m_kernels.value(kernel.id)) {
        Node *sessionNode = sessionNodeOf(node);
        if (node->kernel->role == kernel.role && node->kernel->sessionId == kernel.sessionId &&
            node->kernel->localRank == kernel.localRank &&
            node->kernel->roleIdx == kernel.roleIdx) {
            *node->kernel = kernel;
            emitRowChanged(node);
            refreshRole(node->parent);
            refreshSession(sessionNode, true);
            return;
        }
        // Moved within the tree (a different role or position): take it out, put it back.
        takeKernel(node);
        refreshSession(sessionNode, true);
    }
    Node *sessionNode = m_sessions.value(kernel.sessionId);
    if (!sessionNode) {
        qCDebug(lcSessionModel) << "kernel" << kernel.id << "of unknown session" << kernel.sessionId
                                << "ignored";
        return;
    }
    insertKernel(sessionNode, kernel);
    refreshSession(sessionNode, true);
}

void SessionTreeModel::removeKernel(const QString &sessionId, const QString &kernelId)
{
    m_usageDirty.remove(kernelId);
    m_usage.remove(kernelId);
    m_history.remove(kernelId);
    Node *node = m_kernels.value(kernelId);
    if (!node)
        return;
    Node *sessionNode = sessionNodeOf(node);
    if (sessionNode->id != sessionId)
        return;
    takeKernel(node);
    refreshSession(sessionNode, true);
}

void SessionTreeModel::setHostAddresses(const QHash<QString, QString> &addresses)
{
    if (addresses == m_hostAddresses)
        return;
    m_hostAddresses = addresses;
    // Only the ports column depends on addresses: one dataChanged per session subtree.
    for (const auto &s : m_root->children) {
        Q_EMIT dataChanged(indexFor(s.get(), PortsColumn), indexFor(s.get(), PortsColumn));
        for (const auto &r : s->children) {
            if (r->children.empty())
                continue;
            Q_EMIT dataChanged(indexFor(r->children.front().get(), PortsColumn),
                               indexFor(r->children.back().get(), PortsColumn));
        }
    }
}

void SessionTreeModel::setReferenceTime(const QDateTime &now)
{
    m_referenceTime = now;
}

// ---- tree bookkeeping ----------------------------------------------------------------------

SessionTreeModel::Node *SessionTreeModel::buildSessionNode(const SessionRecord &session,
                                                           QList<KernelRecord> kernels)
{
    auto *node = new Node;
    node->kind = Node::Kind::Session;
    node->id = session.id;
    node->session = std::make_unique<SessionInfo>();
    node->session->record = session;

    // Sort pointers, not records (and usually they come sorted already).
    std::vector<const KernelRecord *> sorted;
    sorted.reserve(size_t(kernels.size()));
    for (const KernelRecord &k : std::as_const(kernels))
        if (k.sessionId == session.id || k.sessionId.isEmpty())
            sorted.push_back(&k);
    const auto less = [](const KernelRecord *a, const KernelRecord *b) {
        return kernelLess(*a, *b);
    };
    if (!std::is_sorted(sorted.begin(), sorted.end(), less))
        std::stable_sort(sorted.begin(), sorted.end(), less);
    // Roles in template order: the order of their first kernel's rank.
    Node *role = nullptr;
    for (const KernelRecord *k : sorted) {
        if (!role || role->id != k->role) {
            role = nullptr;
            for (const auto &r : node->children) {
                if (r->id == k->role) {
                    role = r.get();
                    break;
                }
            }
        }
        if (!role) {
            auto r = std::make_unique<Node>();
            r->kind = Node::Kind::Role;
            r->id = k->role;
            r->parent = node;
            r->row = int(node->children.size());
            r->minRank = k->localRank;
            role = r.get();
            node->children.push_back(std::move(r));
        }
        auto kn = std::make_unique<Node>();
        kn->kind = Node::Kind::Kernel;
        kn->id = k->id;
        kn->parent = role;
        kn->row = int(role->children.size());
        kn->kernel = std::make_unique<KernelRecord>(*k);
        role->children.push_back(std::move(kn));
    }
    for (const auto &r : node->children)
        refreshRole(r.get());
    refreshSession(node, false);
    return node;
}

void SessionTreeModel::indexSessionNode(Node *sessionNode)
{
    m_sessions.insert(sessionNode->id, sessionNode);
    for (const auto &r : sessionNode->children)
        for (const auto &k : r->children)
            m_kernels.insert(k->id, k.get());
}

void SessionTreeModel::unindexSessionNode(Node *sessionNode)
{
    m_sessions.remove(sessionNode->id);
    for (const auto &r : sessionNode->children)
        for (const auto &k : r->children)
            m_kernels.remove(k->id);
}

void SessionTreeModel::syncKernels(Node *sessionNode, const QList<KernelRecord> &kernels)
{
    QSet<QString> keep;
    keep.reserve(kernels.size());
    for (const KernelRecord &k : kernels)
        keep.insert(k.id);
    // Remove the ones that went away (collect first: removal renumbers rows).
    std::vector<Node *> gone;
    for (const auto &r : sessionNode->children)
        for (const auto &k : r->children)
            if (!keep.contains(k->id))
                gone.push_back(k.get());
    for (Node *k : gone)
        takeKernel(k);

    QList<KernelRecord> sorted = kernels;
    std::stable_sort(sorted.begin(), sorted.end(), kernelLess);
    for (KernelRecord k : std::as_const(sorted)) {
        if (k.sessionId.isEmpty())
            k.sessionId = sessionNode->id;
        Node *existing = m_kernels.value(k.id);
        if (existing && sessionNodeOf(existing) == sessionNode &&
            existing->kernel->role == k.role && existing->kernel->localRank == k.localRank &&
            existing->kernel->roleIdx == k.roleIdx) {
            if (*existing->kernel != k) {
                *existing->kernel = k;
                emitRowChanged(existing);
            }
            continue;
        }
        if (existing) {
            Node *oldSession = sessionNodeOf(existing);
            takeKernel(existing);
            if (oldSession != sessionNode)
                refreshSession(oldSession, true);
        }
        insertKernel(sessionNode, k);
    }
    for (const auto &r : sessionNode->children)
        refreshRole(r.get());
}

SessionTreeModel::Node *SessionTreeModel::insertKernel(Node *sessionNode,
                                                       const KernelRecord &kernel)
{
    // The role row, created in template order if this is its first kernel.
    Node *role = nullptr;
    for (const auto &r : sessionNode->children) {
        if (r->id == kernel.role) {
            role = r.get();
            break;
        }
    }
    if (!role) {
        int pos = 0;
        while (pos < int(sessionNode->children.size()) &&
               sessionNode->children[size_t(pos)]->minRank <= kernel.localRank)
            ++pos;
        beginInsertRows(indexFor(sessionNode), pos, pos);
        auto r = std::make_unique<Node>();
        r->kind = Node::Kind::Role;
        r->id = kernel.role;
        r->parent = sessionNode;
        r->minRank = kernel.localRank;
        role = r.get();
        sessionNode->children.insert(sessionNode->children.begin() + pos, std::move(r));
        sessionNode->renumberFrom(pos);
        endInsertRows();
    }
    int pos = 0;
    while (pos < int(role->children.size()) &&
           !kernelLess(kernel, *role->children[size_t(pos)]->kernel))
        ++pos;
    beginInsertRows(indexFor(role), pos, pos);
    auto kn = std::make_unique<Node>();
    kn->kind = Node::Kind::Kernel;
    kn->id = kernel.id;
    kn->parent = role;
    kn->kernel = std::make_unique<KernelRecord>(kernel);
    Node *result = kn.get();
    role->children.insert(role->children.begin() + pos, std::move(kn));
    role->renumberFrom(pos);
    m_kernels.insert(kernel.id, result);
    endInsertRows();
    role->minRank = std::min(role->minRank, kernel.localRank);
    refreshRole(role);
    return result;
}

void SessionTreeModel::takeKernel(Node *kernelNode)
{
    Node *role = kernelNode->parent;
    Node *sessionNode = role->parent;
    const int row = kernelNode->row;
    beginRemoveRows(indexFor(role), row, row);
    m_kernels.remove(kernelNode->id);
    role->children.erase(role->children.begin() + row);
    role->renumberFrom(row);
    endRemoveRows();
    if (role->children.empty()) {
        const int roleRow = role->row;
        beginRemoveRows(indexFor(sessionNode), roleRow, roleRow);
        sessionNode->children.erase(sessionNode->children.begin() + roleRow);
        sessionNode->renumberFrom(roleRow);
        endRemoveRows();
        // The primary pointer may dangle until the refresh below; nothing reads it meanwhile.
        sessionNode->session->primary = nullptr;
        return;
    }
    if (sessionNode->session->primary == kernelNode)
        sessionNode->session->primary = nullptr;
    refreshRole(role);
}

void SessionTreeModel::refreshRole(Node *roleNode)
{
    QList<KernelStatus> statuses;
    statuses.reserve(qsizetype(roleNode->children.size()));
    QStringList hosts;
    int minRank = roleNode->children.empty() ? 0 : roleNode->children.front()->kernel->localRank;
    for (const auto &k : roleNode->children) {
        statuses.append(k->kernel->status);
        if (!k->kernel->host.isEmpty() && !hosts.contains(k->kernel->host))
            hosts.append(k->kernel->host);
        minRank = std::min(minRank, k->kernel->localRank);
    }
    hosts.sort();
    roleNode->roleStatus = deriveSessionStatus(statuses);
    roleNode->roleHosts = hosts;
    roleNode->minRank = minRank;
    // Always notify: the count in the role's name may have changed even when the status did not.
    if (m_sessions.contains(roleNode->parent->id))
        emitRowChanged(roleNode);
}

void SessionTreeModel::refreshSession(Node *sessionNode, bool notify)
{
    SessionInfo &info = *sessionNode->session;
    QList<KernelStatus> statuses;
    QStringList hosts;
    QStringList hostnames;
    QStringList parts;
    const Node *primary = nullptr;
    const Node *firstByRank = nullptr;
    int count = 0;
    for (const auto &r : sessionNode->children) {
        parts.append(r->id + QStringLiteral("×") + QString::number(r->children.size()));
        for (const auto &k : r->children) {
            const KernelRecord &kr = *k->kernel;
            ++count;
            statuses.append(kr.status);
            hostnames.append(kr.hostname);
            if (!kr.host.isEmpty() && !hosts.contains(kr.host))
                hosts.append(kr.host);
            if (kr.primary && !primary)
                primary = k.get();
            if (!firstByRank || kr.localRank < firstByRank->kernel->localRank)
                firstByRank = k.get();
        }
    }
    hosts.sort();
    // The primary is the kernel flagged so; failing that, the first kernel of the first role.
    info.primary = primary ? primary : firstByRank;
    info.kernelCount = count;
    info.hosts = hosts;
    info.hostnames = hostnames;
    info.summary = count == 0 ? tr("no kernels")
                              : (count == 1 ? tr("1 kernel") : tr("%1 kernels").arg(count)) +
                                    QStringLiteral(": ") + parts.join(QStringLiteral(", "));
    const SessionRecord &rec = info.record;
    if (count == 0 || isFinal(rec.status))
        info.shown = rec.status;
    else
        info.shown = deriveSessionStatus(statuses);
    if (notify)
        emitRowChanged(sessionNode);
}

void SessionTreeModel::emitRowChanged(const Node *node)
{
    Q_EMIT dataChanged(indexFor(node, 0), indexFor(node, kLastColumn));
}

SessionTreeModel::Node *SessionTreeModel::sessionNodeOf(const Node *node) const
{
    while (node && node->kind != Node::Kind::Session)
        node = node->parent;
    return const_cast<Node *>(node);
}

SessionTreeModel::Node *SessionTreeModel::nodeFor(const QModelIndex &index) const
{
    if (!index.isValid())
        return m_root.get();
    return static_cast<Node *>(index.internalPointer());
}

QModelIndex SessionTreeModel::indexFor(const Node *node, int column) const
{
    if (!node || node == m_root.get())
        return {};
    return createIndex(node->row, column, const_cast<Node *>(node));
}

// ---- lookups -------------------------------------------------------------------------------

bool SessionTreeModel::hasSession(const QString &sessionId) const
{
    return m_sessions.contains(sessionId);
}

bool SessionTreeModel::hasKernel(const QString &kernelId) const
{
    return m_kernels.contains(kernelId);
}

int SessionTreeModel::sessionCount() const
{
    return int(m_sessions.size());
}

int SessionTreeModel::kernelCount() const
{
    return int(m_kernels.size());
}

QModelIndex SessionTreeModel::sessionIndex(const QString &sessionId, int column) const
{
    return indexFor(m_sessions.value(sessionId), column);
}

QModelIndex SessionTreeModel::kernelIndex(const QString &kernelId, int column) const
{
    return indexFor(m_kernels.value(kernelId), column);
}

std::optional<SessionRecord> SessionTreeModel::sessionRecord(const QString &sessionId) const
{
    if (const Node *n = m_sessions.value(sessionId))
        return n->session->record;
    return std::nullopt;
}

std::optional<KernelRecord> SessionTreeModel::kernelRecord(const QString &kernelId) const
{
    if (const Node *n = m_kernels.value(kernelId))
        return *n->kernel;
    return std::nullopt;
}

QList<KernelRecord> SessionTreeModel::runningKernels() const
{
    QList<KernelRecord> running;
    for (const Node *n : m_kernels) {
        if (n->kernel->status == KernelStatus::Running)
            running.append(*n->kernel);
    }
    return running;
}

SessionStatus SessionTreeModel::displayedStatus(const QString &sessionId) const
{
    if (const Node *n = m_sessions.value(sessionId))
        return n->session->shown;
    return SessionStatus::Pending;
}

// ---- formatting ----------------------------------------------------------------------------

QString SessionTreeModel::statusText(SessionStatus status)
{
    return toString(status);
}

QString SessionTreeModel::statusText(KernelStatus status)
{
    return toString(status);
}

QString SessionTreeModel::formatAge(qint64 seconds)
{
    if (seconds < 0)
        seconds = 0;
    if (seconds < 60)
        return QStringLiteral("%1s").arg(seconds);
    if (seconds < 3600)
        return QStringLiteral("%1m").arg(seconds / 60);
    if (seconds < 86400)
        return QStringLiteral("%1h %2m").arg(seconds / 3600).arg((seconds % 3600) / 60);
    return QStringLiteral("%1d %2h").arg(seconds / 86400).arg((seconds % 86400) / 3600);
}

qint64 SessionTreeModel::ageSeconds(const QDateTime &created) const
{
    if (!created.isValid())
        return -1;
    const QDateTime now =
        m_referenceTime.isValid() ? m_referenceTime : QDateTime::currentDateTimeUtc();
    return created.secsTo(now);
}

QString SessionTreeModel::portAddress(const KernelRecord &kernel, const PortBinding &port) const
{
    if (!port.url.isEmpty()) {
        const QString host = QUrl(port.url).host();
        if (!host.isEmpty())
            return host;
    }
    const QString address = m_hostAddresses.value(kernel.host);
    return address.isEmpty() ? kernel.host : address;
}

QVariant SessionTreeModel::portsValue(const KernelRecord &kernel) const
{
    QVariantList list;
    for (const PortBinding &p : kernel.ports) {
        if (p.hostPort <= 0)
            continue; // only ports that exist are shown
        const QString address = portAddress(kernel, p);
        QString url = p.url;
        if (url.isEmpty())
            url = QStringLiteral("%1://%2:%3")
                      .arg(p.protocol.isEmpty() ? QStringLiteral("tcp") : p.protocol, address)
                      .arg(p.hostPort);
        list.append(QVariantMap{{QStringLiteral("name"), p.name},
                                {QStringLiteral("protocol"), p.protocol},
                                {QStringLiteral("url"), url},
                                {QStringLiteral("address"), address},
                                {QStringLiteral("port"), p.hostPort},
                                {QStringLiteral("containerPort"), p.containerPort}});
    }
    return list;
}

QString SessionTreeModel::portsText(const KernelRecord &kernel) const
{
    QStringList parts;
    for (const PortBinding &p : kernel.ports) {
        if (p.hostPort <= 0)
            continue;
        const QString target =
            !p.url.isEmpty() ? p.url : portAddress(kernel, p) + u':' + QString::number(p.hostPort);
        parts.append(p.name + QStringLiteral(" → ") + target);
    }
    return parts.join(QStringLiteral(", "));
}

// ---- QAbstractItemModel --------------------------------------------------------------------

QModelIndex SessionTreeModel::index(int row, int column, const QModelIndex &parent) const
{
    if (row < 0 || column < 0 || column >= ColumnCount)
        return {};
    if (parent.isValid() && parent.column() != 0)
        return {};
    const Node *p = nodeFor(parent);
    if (!p || row >= int(p->children.size()))
        return {};
    return createIndex(row, column, p->children[size_t(row)].get());
}

QModelIndex SessionTreeModel::parent(const QModelIndex &child) const
{
    const Node *n = child.isValid() ? nodeFor(child) : nullptr;
    if (!n || !n->parent || n->parent == m_root.get())
        return {};
    return createIndex(n->parent->row, 0, n->parent);
}

int SessionTreeModel::rowCount(const QModelIndex &parent) const
{
    if (parent.isValid() && parent.column() != 0)
        return 0;
    const Node *n = nodeFor(parent);
    return n ? int(n->children.size()) : 0;
}

int SessionTreeModel::columnCount(const QModelIndex &) const
{
    return ColumnCount;
}

Qt::ItemFlags SessionTreeModel::flags(const QModelIndex &index) const
{
    if (!index.isValid())
        return Qt::NoItemFlags;
    return Qt::ItemIsEnabled | Qt::ItemIsSelectable;
}

QVariant SessionTreeModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case NameColumn:
        return tr("Name");
    case StatusColumn:
        return tr("Status");
    case TemplateColumn:
        return tr("Template / Role");
    case KernelsColumn:
        return tr("Kernels");
    case HostsColumn:
        return tr("Hosts");
    case ContainerColumn:
        return tr("Container");
    case AgeColumn:
        return tr("Age");
    case PortsColumn:
        return tr("Service ports");
    case CpuColumn:
        return tr("CPU");
    case MemoryColumn:
        return tr("Memory");
    default:
        return {};
    }
}

QHash<int, QByteArray> SessionTreeModel::roleNames() const
{
    QHash<int, QByteArray> names = QAbstractItemModel::roleNames();
    names.insert(KindRole, "kind");
    names.insert(IdRole, "id");
    names.insert(SessionIdRole, "sessionId");
    names.insert(KernelIdRole, "kernelId");
    names.insert(SessionNameRole, "sessionName");
    names.insert(TemplateRole, "template");
    names.insert(RoleNameRole, "role");
    names.insert(HostnameRole, "hostname");
    names.insert(HostnamesRole, "hostnames");
    names.insert(HostRole, "hosts");
    names.insert(StatusRole, "status");
    names.insert(ContainerIdRole, "containerId");
    names.insert(PortsRole, "ports");
    names.insert(PortUrlsRole, "portUrls");
    names.insert(CreatedAtRole, "createdAt");
    names.insert(SortRole, "sort");
    names.insert(LastErrorRole, "lastError");
    names.insert(KernelCountRole, "kernelCount");
    names.insert(LocalRankRole, "localRank");
    names.insert(UsageRole, "usage");
    names.insert(CpuHistoryRole, "cpuHistory");
    names.insert(MemoryHistoryRole, "memoryHistory");
    names.insert(SessionStatusRole, "sessionStatus");
    names.insert(KernelStatusRole, "kernelStatus");
    return names;
}

QVariant SessionTreeModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid))
        return {};
    const Node *node = nodeFor(index);
    if (node->kind != Node::Kind::Root && (index.column() >= CpuColumn || role == UsageRole ||
                                           role == CpuHistoryRole || role == MemoryHistoryRole))
        return usageData(node, index.column(), role);
    switch (node->kind) {
    case Node::Kind::Session:
        return sessionData(node, index.column(), role);
    case Node::Kind::Role:
        return roleData(node, index.column(), role);
    case Node::Kind::Kernel:
        return kernelData(node, index.column(), role);
    case Node::Kind::Root:
        break;
    }
    return {};
}

static QStringList portUrls(const QVariant &ports)
{
    QStringList urls;
    for (const QVariant &v : ports.toList())
        urls.append(v.toMap().value(QStringLiteral("url")).toString());
    return urls;
}

QVariant SessionTreeModel::sessionData(const Node *node, int column, int role) const
{
    const SessionInfo &info = *node->session;
    const SessionRecord &rec = info.record;
    const KernelRecord *primary = info.primary ? info.primary->kernel.get() : nullptr;
    const QString status = statusText(info.shown);
    switch (role) {
    case Qt::DisplayRole:
        switch (column) {
        case NameColumn:
            return rec.name.isEmpty() ? shortId(rec.id, 8) : rec.name;
        case StatusColumn:
            return status;
        case TemplateColumn:
            return rec.templateName;
        case KernelsColumn:
            return info.summary;
        case HostsColumn:
            return info.hosts.join(QStringLiteral(", "));
        case ContainerColumn:
            return primary ? shortId(primary->containerId) : QString();
        case AgeColumn: {
            const qint64 age = ageSeconds(rec.createdAt);
            return age < 0 ? QString() : formatAge(age);
        }
        case PortsColumn:
            return primary ? portsText(*primary) : QString();
        }
        return {};
    case Qt::DecorationRole:
        if (column == StatusColumn)
            return statusIcon(toneOf(info.shown));
        return {};
    case Qt::ToolTipRole:
        if (column == StatusColumn || column == NameColumn) {
            QString tip = tr("Session %1 (%2)").arg(rec.name, rec.id);
            if (primary)
                tip += u'\n' + tr("Primary kernel: %1 on %2").arg(primary->hostname, primary->host);
            if (!rec.lastError.isEmpty())
                tip += u'\n' + InertText::of(rec.lastError);
            return tip;
        }
        if (column == AgeColumn && rec.createdAt.isValid())
            return QLocale().toString(rec.createdAt.toLocalTime(), QLocale::LongFormat);
        return {};
    case Qt::FontRole:
        if (column == NameColumn) {
            QFont f;
            f.setBold(true);
            return f;
        }
        return {};
    case KindRole:
        return int(RowKind::Session);
    case IdRole:
    case SessionIdRole:
        return rec.id;
    case KernelIdRole:
        return primary ? primary->id : QString();
    case SessionNameRole:
        return rec.name;
    case TemplateRole:
        return rec.templateName;
    case RoleNameRole:
        return primary ? primary->role : QString();
    case HostnameRole:
        return primary ? primary->hostname : QString();
    case HostnamesRole:
        return info.hostnames;
    case HostRole:
        return info.hosts;
    case StatusRole:
        return status;
    case SessionStatusRole:
        return QVariant::fromValue(info.shown);
    case KernelStatusRole:
        return primary ? QVariant::fromValue(primary->status) : QVariant();
    case ContainerIdRole:
        return primary ? primary->containerId : QString();
    case PortsRole:
        return primary ? portsValue(*primary) : QVariant(QVariantList{});
    case PortUrlsRole:
        return primary ? portUrls(portsValue(*primary)) : QStringList{};
    case CreatedAtRole:
        return rec.createdAt;
    case LastErrorRole:
        return InertText::of(rec.lastError);
    case KernelCountRole:
        return info.kernelCount;
    case LocalRankRole:
        return node->row;
    case SortRole:
        switch (column) {
        case StatusColumn:
            return int(info.shown);
        case KernelsColumn:
            return info.kernelCount;
        case AgeColumn:
            return rec.createdAt.isValid() ? rec.createdAt.toMSecsSinceEpoch() : 0;
        default:
            return sessionData(node, column, Qt::DisplayRole).toString().toLower();
        }
    }
    return {};
}

QVariant SessionTreeModel::roleData(const Node *node, int column, int role) const
{
    const Node *sessionNode = node->parent;
    const SessionRecord &rec = sessionNode->session->record;
    const int count = int(node->children.size());
    const QString status = statusText(node->roleStatus);
    switch (role) {
    case Qt::DisplayRole:
        switch (column) {
        case NameColumn:
            return QStringLiteral("%1 (%2)").arg(node->id).arg(count);
        case StatusColumn:
            return status;
        case TemplateColumn:
            return node->id;
        case KernelsColumn:
            return count == 1 ? tr("1 kernel") : tr("%1 kernels").arg(count);
        case HostsColumn:
            return node->roleHosts.join(QStringLiteral(", "));
        }
        return {};
    case Qt::DecorationRole:
        if (column == StatusColumn)
            return statusIcon(toneOf(node->roleStatus));
        return {};
    case Qt::FontRole:
        if (column == NameColumn) {
            QFont f;
            f.setItalic(true);
            return f;
        }
        return {};
    case KindRole:
        return int(RowKind::Role);
    case IdRole:
        return node->id;
    case SessionIdRole:
        return rec.id;
    case KernelIdRole:
        return node->children.empty() ? QString() : node->children.front()->id;
    case SessionNameRole:
        return rec.name;
    case TemplateRole:
        return rec.templateName;
    case RoleNameRole:
        return node->id;
    case HostnamesRole: {
        QStringList names;
        for (const auto &k : node->children)
            names.append(k->kernel->hostname);
        return names;
    }
    case HostRole:
        return node->roleHosts;
    case StatusRole:
        return status;
    case SessionStatusRole:
        return QVariant::fromValue(node->roleStatus);
    case PortsRole:
        return QVariantList{};
    case PortUrlsRole:
        return QStringList{};
    case CreatedAtRole:
        return rec.createdAt;
    case KernelCountRole:
        return count;
    case LocalRankRole:
        return node->minRank;
    case SortRole:
        return node->minRank;
    }
    return {};
}

QVariant SessionTreeModel::kernelData(const Node *node, int column, int role) const
{
    const KernelRecord &k = *node->kernel;
    const Node *sessionNode = node->parent->parent;
    const SessionRecord &rec = sessionNode->session->record;
    const QString status = statusText(k.status);
    const QString lastReason = k.history.isEmpty() ? QString() : k.history.constLast().reason;
    switch (role) {
    case Qt::DisplayRole:
        switch (column) {
        case NameColumn:
            return k.hostname;
        case StatusColumn:
            return status;
        case TemplateColumn:
            return QStringLiteral("%1 %2").arg(k.role).arg(k.roleIdx);
        case KernelsColumn:
            return k.primary || sessionNode->session->primary == node
                       ? tr("rank %1 · primary").arg(k.localRank)
                       : tr("rank %1").arg(k.localRank);
        case HostsColumn:
            return k.host;
        case ContainerColumn:
            return shortId(k.containerId);
        case AgeColumn: {
            const qint64 age = ageSeconds(k.createdAt);
            return age < 0 ? QString() : formatAge(age);
        }
        case PortsColumn:
            return portsText(k);
        }
        return {};
    case Qt::DecorationRole:
        if (column == StatusColumn)
            return statusIcon(toneOf(k.status));
        return {};
    case Qt::ToolTipRole:
        if (column == StatusColumn && !lastReason.isEmpty())
            return lastReason;
        if (column == ContainerColumn && !k.containerId.isEmpty())
            return QString(k.containerName + u'\n' + k.containerId);
        if (column == NameColumn)
            return tr("Kernel %1 (%2)").arg(k.hostname, k.id);
        return {};
    case KindRole:
        return int(RowKind::Kernel);
    case IdRole:
    case KernelIdRole:
        return k.id;
    case SessionIdRole:
        return rec.id;
    case SessionNameRole:
        return rec.name;
    case TemplateRole:
        return rec.templateName;
    case RoleNameRole:
        return k.role;
    case HostnameRole:
        return k.hostname;
    case HostnamesRole:
        return QStringList{k.hostname};
    case HostRole:
        return QStringList{k.host};
    case StatusRole:
        return status;
    case KernelStatusRole:
        return QVariant::fromValue(k.status);
    case ContainerIdRole:
        return k.containerId;
    case PortsRole:
        return portsValue(k);
    case PortUrlsRole:
        return portUrls(portsValue(k));
    case CreatedAtRole:
        return k.createdAt;
    case LastErrorRole:
        return lastReason;
    case KernelCountRole:
        return 1;
    case LocalRankRole:
        return k.localRank;
    case SortRole:
        return k.localRank;
    }
    return {};
}

// ---------------------------------------------------------------------------------------------
// Live usage

void SessionTreeModel::setUsage(const QString &kernelId, const Docker::ResourceUsage &usage)
{
    const Node *node = m_kernels.value(kernelId);
    if (!node)
        return;
    const KernelRecord &k = *node->kernel;
    m_usage.set({k.sessionId, k.role, k.id, k.host}, usage);
    History &h = m_history[kernelId];
    h.cpu.append(usage.cpuPercent);
    h.memory.append(double(usage.memoryUsed));
    if (h.cpu.size() > kUsageHistory) {
        h.cpu.removeFirst();
        h.memory.removeFirst();
    }
    m_usageDirty.insert(kernelId);
    if (!m_usageFlush) {
        m_usageFlush = new QTimer(this);
        m_usageFlush->setSingleShot(true);
        m_usageFlush->setInterval(100);
        connect(m_usageFlush, &QTimer::timeout, this, &SessionTreeModel::flushUsage);
    }
    if (!m_usageFlush->isActive())
        m_usageFlush->start();
}

void SessionTreeModel::flushUsage()
{
    // Each changed kernel row once, then each role and session row once.
    QSet<const Node *> parents;
    for (const QString &id : std::as_const(m_usageDirty)) {
        const Node *node = m_kernels.value(id);
        if (!node)
            continue;
        emitUsageCells(node,
                       {Qt::DisplayRole, UsageRole, CpuHistoryRole, MemoryHistoryRole, SortRole});
        for (const Node *n = node->parent; n && n != m_root.get(); n = n->parent)
            parents.insert(n);
    }
    m_usageDirty.clear();
    for (const Node *n : std::as_const(parents))
        emitUsageCells(n, {Qt::DisplayRole, UsageRole, SortRole});
}

void SessionTreeModel::emitUsageCells(const Node *node, const QList<int> &roles)
{
    // One cell at a time: a view repaints a single changed cell, but the whole viewport for a
    // range (QAbstractItemView::dataChanged), i.e. every visible row at every flush.
    Q_EMIT dataChanged(indexFor(node, CpuColumn), indexFor(node, CpuColumn), roles);
    Q_EMIT dataChanged(indexFor(node, MemoryColumn), indexFor(node, MemoryColumn), roles);
}

void SessionTreeModel::clearUsage(const QString &kernelId)
{
    m_usage.remove(kernelId);
    m_history.remove(kernelId);
    if (const Node *node = m_kernels.value(kernelId))
        emitUsageChanged(node);
}

void SessionTreeModel::clearAllUsage()
{
    const QList<QString> ids = m_history.keys();
    m_usage.clear();
    m_history.clear();
    for (const QString &id : ids) {
        if (const Node *node = m_kernels.value(id))
            emitUsageChanged(node);
    }
}

void SessionTreeModel::emitUsageChanged(const Node *node)
{
    // The kernel's cells, then the sums on its role and session rows.
    for (const Node *n = node; n && n != m_root.get(); n = n->parent)
        emitUsageCells(n,
                       {Qt::DisplayRole, UsageRole, CpuHistoryRole, MemoryHistoryRole, SortRole});
}

QVariant SessionTreeModel::usageData(const Node *node, int column, int role) const
{
    std::optional<Docker::ResourceUsage> usage;
    switch (node->kind) {
    case Node::Kind::Kernel:
        usage = m_usage.kernel(node->id);
        break;
    case Node::Kind::Role: {
        const Docker::ResourceUsage sum = m_usage.role(node->parent->id, node->id);
        if (sum.kernels > 0)
            usage = sum;
        break;
    }
    case Node::Kind::Session: {
        const Docker::ResourceUsage sum = m_usage.session(node->id);
        if (sum.kernels > 0)
            usage = sum;
        break;
    }
    case Node::Kind::Root:
        break;
    }
    if (role == UsageRole)
        return usage ? QVariant::fromValue(*usage) : QVariant();
    if (role == CpuHistoryRole || role == MemoryHistoryRole) {
        if (node->kind != Node::Kind::Kernel)
            return {};
        const auto it = m_history.constFind(node->id);
        if (it == m_history.cend())
            return {};
        return QVariant::fromValue(role == CpuHistoryRole ? it->cpu : it->memory);
    }
    if (column < CpuColumn) {
        // Not a usage column: the row's own data.
        switch (node->kind) {
        case Node::Kind::Session:
            return sessionData(node, column, role);
        case Node::Kind::Role:
            return roleData(node, column, role);
        default:
            return kernelData(node, column, role);
        }
    }
    switch (role) {
    case Qt::DisplayRole:
        if (!usage)
            return {};
        if (column == CpuColumn)
            return QStringLiteral("%1 %").arg(usage->cpuPercent, 0, 'f', 1);
        return usage->memoryLimit ? formatBytes(qint64(usage->memoryUsed)) + QStringLiteral(" / ") +
                                        formatBytes(qint64(usage->memoryLimit))
                                  : formatBytes(qint64(usage->memoryUsed));
    case Qt::TextAlignmentRole:
        return int(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::ToolTipRole:
        if (!usage)
            return {};
        return tr("CPU %1 % · memory %2 of %3 (%4 %) · net %5 in / %6 out · block %7 read / %8 "
                  "written · %9 processes")
            .arg(usage->cpuPercent, 0, 'f', 1)
            .arg(formatBytes(qint64(usage->memoryUsed)), formatBytes(qint64(usage->memoryLimit)))
            .arg(usage->memoryPercent(), 0, 'f', 1)
            .arg(formatBytes(qint64(usage->rxBytes)), formatBytes(qint64(usage->txBytes)),
                 formatBytes(qint64(usage->blockRead)), formatBytes(qint64(usage->blockWrite)))
            .arg(usage->pids);
    case SortRole:
        if (!usage)
            return -1.0;
        return column == CpuColumn ? usage->cpuPercent : double(usage->memoryUsed);
    case KindRole:
    case IdRole:
    case SessionIdRole:
    case KernelIdRole:
    case SessionNameRole:
    case HostnameRole:
    case StatusRole:
    case SessionStatusRole:
    case KernelStatusRole:
    case RoleNameRole:
    case KernelCountRole:
    case LocalRankRole:
    case HostRole:
    case HostnamesRole:
    case TemplateRole:
    case ContainerIdRole:
    case CreatedAtRole:
    case LastErrorRole:
    case PortsRole:
    case PortUrlsRole:
        switch (node->kind) {
        case Node::Kind::Session:
            return sessionData(node, NameColumn, role);
        case Node::Kind::Role:
            return roleData(node, NameColumn, role);
        default:
            return kernelData(node, NameColumn, role);
        }
    default:
        return {};
    }
}

} // namespace ClusterDeck::Ui
