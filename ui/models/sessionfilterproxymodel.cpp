#include "sessionfilterproxymodel.h"

#include "sessiontreemodel.h"

#include <algorithm>

namespace ClusterDeck::Ui {

using Model = SessionTreeModel;

SessionFilterProxyModel::SessionFilterProxyModel(QObject *parent)
    : QSortFilterProxyModel(parent)
{
    // A match deep down keeps its parents; a matching session keeps all its children.
    setRecursiveFilteringEnabled(true);
    setAutoAcceptChildRows(true);
    setSortRole(Model::SortRole);
    // filterAcceptsRow() reads the status and the names, which change only with whole rows (a
    // dataChanged without roles). With the default filter role (DisplayRole), every live usage
    // update (DisplayRole among its roles) had the proxy filter the kernel's role and session rows
    // again and announce them changed, so the view measured and repainted them ten times a second.
    setFilterRole(Model::StatusRole);
    setSortCaseSensitivity(Qt::CaseInsensitive);
}

void SessionFilterProxyModel::setFilterText(const QString &text)
{
    if (text == m_text)
        return;
    m_text = text;
    m_terms.clear();
    const QStringList words = text.simplified().split(u' ', Qt::SkipEmptyParts);
    static const QStringList fields = {QStringLiteral("name"), QStringLiteral("template"),
                                       QStringLiteral("host"), QStringLiteral("status"),
                                       QStringLiteral("role")};
    for (const QString &word : words) {
        const qsizetype colon = word.indexOf(u':');
        if (colon > 0 && fields.contains(word.left(colon).toLower())) {
            const QString value = word.mid(colon + 1);
            if (!value.isEmpty())
                m_terms.append({word.left(colon).toLower(), value});
        } else {
            m_terms.append({QString(), word});
        }
    }
    invalidateFilter();
}

void SessionFilterProxyModel::setStatusFilter(const QList<SessionStatus> &statuses)
{
    if (statuses == m_statuses)
        return;
    m_statuses = statuses;
    invalidateFilter();
}

void SessionFilterProxyModel::setShowFinished(bool show)
{
    if (show == m_showFinished)
        return;
    m_showFinished = show;
    invalidateFilter();
}

bool SessionFilterProxyModel::termMatches(const Term &term, const QModelIndex &index) const
{
    const auto kind = Model::RowKind(index.data(Model::KindRole).toInt());
    const auto has = [&term](const QString &s) {
        return s.contains(term.value, Qt::CaseInsensitive);
    };
    const auto hasAny = [&has](const QStringList &list) {
        return std::any_of(list.cbegin(), list.cend(), has);
    };
    // Session fields are inherited by their kernels (so "template:x host:y" finds the kernels
    // on y of sessions from x); host matches only on kernels, so a host filter shows only the
    // kernels on that host, with their parents.
    const bool any = term.field.isEmpty();
    if ((any || term.field == u"name") &&
        (has(index.data(Model::SessionNameRole).toString()) ||
         (kind == Model::RowKind::Kernel && has(index.data(Model::HostnameRole).toString())) ||
         (kind == Model::RowKind::Session && any &&
          index.data(Model::SessionIdRole).toString().startsWith(term.value))))
        return true;
    if ((any || term.field == u"template") && has(index.data(Model::TemplateRole).toString()))
        return true;
    if ((any || term.field == u"role") && kind != Model::RowKind::Session &&
        has(index.data(Model::RoleNameRole).toString()))
        return true;
    if ((any || term.field == u"host") && kind == Model::RowKind::Kernel &&
        hasAny(index.data(Model::HostRole).toStringList()))
        return true;
    if ((any || term.field == u"status") && kind != Model::RowKind::Role &&
        has(index.data(Model::StatusRole).toString()))
        return true;
    if (any && kind == Model::RowKind::Kernel &&
        index.data(Model::ContainerIdRole).toString().startsWith(term.value))
        return true;
    return false;
}

bool SessionFilterProxyModel::filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const
{
    const QModelIndex index = sourceModel()->index(sourceRow, 0, sourceParent);
    if (!index.isValid())
        return false;
    if (!m_statuses.isEmpty() || !m_showFinished) {
        // These apply to the session as a whole.
        QModelIndex session = index;
        while (session.parent().isValid())
            session = session.parent();
        const auto status = session.data(Model::SessionStatusRole).value<SessionStatus>();
        if (!m_statuses.isEmpty() && !m_statuses.contains(status))
            return false;
        if (!m_showFinished &&
            (status == SessionStatus::Terminated || status == SessionStatus::Cancelled ||
             status == SessionStatus::Completed))
            return false;
    }
    for (const Term &term : m_terms)
        if (!termMatches(term, index))
            return false;
    return true;
}

bool SessionFilterProxyModel::lessThan(const QModelIndex &left, const QModelIndex &right) const
{
    if (left.parent().isValid()) {
        // Roles and kernels stay in template order whatever the column and direction.
        const int a = left.data(Model::LocalRankRole).toInt();
        const int b = right.data(Model::LocalRankRole).toInt();
        return sortOrder() == Qt::AscendingOrder ? a < b : b < a;
    }
    return QSortFilterProxyModel::lessThan(left, right);
}

} // namespace ClusterDeck::Ui
