#include "useraccounts.h"

#include "presets.h"

#include <QRegularExpression>

namespace ClusterDeck {

namespace {

bool isRoot(const QString &user)
{
    const QString name = user.section(QLatin1Char(':'), 0, 0);
    return name.isEmpty() || name == QLatin1String("root") || name == QLatin1String("0");
}

std::optional<int> number(const QString &text)
{
    bool ok = false;
    const int n = text.toInt(&ok);
    if (!ok || n < 0)
        return std::nullopt;
    return n;
}

} // namespace

UserAccounts UserAccounts::parse(const QByteArray &passwd)
{
    UserAccounts accounts;
    for (const QByteArray &line : passwd.split('\n')) {
        const QList<QByteArray> f = line.trimmed().split(':');
        // name:password:uid:gid:gecos:home:shell
        if (f.size() < 7 || f.at(0).isEmpty() || f.at(0).startsWith('#'))
            continue;
        const auto uid = number(QString::fromUtf8(f.at(2)));
        const auto gid = number(QString::fromUtf8(f.at(3)));
        if (!uid || !gid)
            continue;
        accounts.m_accounts.append(
            {QString::fromUtf8(f.at(0)), *uid, *gid, QString::fromUtf8(f.at(5))});
    }
    return accounts;
}

std::optional<UserAccount> UserAccounts::byName(const QString &name) const
{
    for (const UserAccount &a : m_accounts) {
        if (a.name == name)
            return a;
    }
    return std::nullopt;
}

std::optional<UserAccount> UserAccounts::byUid(int uid) const
{
    for (const UserAccount &a : m_accounts) {
        if (a.uid == uid)
            return a;
    }
    return std::nullopt;
}

std::optional<UserAccount> UserAccounts::resolve(const QString &user) const
{
    if (isRoot(user))
        return UserAccount{QStringLiteral("root"), 0, 0, QStringLiteral("/root")};
    const QString name = user.section(QLatin1Char(':'), 0, 0);
    const QString group = user.section(QLatin1Char(':'), 1, 1);
    std::optional<UserAccount> account;
    if (const auto uid = number(name)) {
        account = byUid(*uid);
        if (!account) // Docker runs it all the same; nobody to name.
            account = UserAccount{QString(), *uid, *uid, Presets::homeOf(user)};
    } else {
        account = byName(name);
    }
    if (account && !group.isEmpty()) {
        if (const auto gid = number(group))
            account->gid = *gid;
    }
    if (account && account->home.isEmpty())
        account->home = Presets::homeOf(user);
    return account;
}

bool UserAccounts::needsLookup(const KernelSpec &kernel)
{
    if (isRoot(kernel.user))
        return false;
    for (const PlannedFile &f : kernel.files) {
        if (!f.owner.isEmpty())
            return true;
    }
    return false;
}

QList<PlannedFile> UserAccounts::placeFiles(const KernelSpec &kernel, QString *home) const
{
    const QString planned = Presets::homeOf(kernel.user);
    if (home)
        *home = planned;
    const auto account = resolve(kernel.user);
    if (!account || isRoot(kernel.user))
        return kernel.files;
    if (home)
        *home = account->home;
    const QString owner = QStringLiteral("%1:%2").arg(account->uid).arg(account->gid);
    static const QRegularExpression userLine(QStringLiteral("^(\\s*User\\s+)(\\d+)\\s*$"),
                                             QRegularExpression::MultilineOption);
    QList<PlannedFile> files = kernel.files;
    for (PlannedFile &f : files) {
        if (f.path.startsWith(planned + QLatin1Char('/')))
            f.path = account->home + f.path.mid(planned.size());
        if (f.owner == kernel.user)
            f.owner = owner;
        if (f.path == account->home + QStringLiteral("/.ssh/config")) {
            // Roles running as a bare uid: ssh needs the account's name.
            QString text = QString::fromUtf8(f.content);
            QString result;
            qsizetype last = 0;
            for (auto it = userLine.globalMatch(text); it.hasNext();) {
                const QRegularExpressionMatch m = it.next();
                const auto named = byUid(m.captured(2).toInt());
                result += text.mid(last, m.capturedStart() - last);
                result += named ? m.captured(1) + named->name : m.captured(0);
                last = m.capturedEnd();
            }
            result += text.mid(last);
            f.content = result.toUtf8();
        }
    }
    return files;
}

} // namespace ClusterDeck
