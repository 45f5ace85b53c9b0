#pragma once

#include "clusterplan.h"

#include <QByteArray>
#include <QList>
#include <QString>

#include <optional>

namespace ClusterDeck {

// One line of an image's /etc/passwd.
struct UserAccount
{
    QString name;
    int uid = 0;
    int gid = 0;
    QString home;
    friend bool operator==(const UserAccount &, const UserAccount &) = default;
};

// The accounts of an image (its /etc/passwd), and where a kernel's files go for the user it runs
// as. The plan puts a user's files under Presets::homeOf(user) (/home/<user>), which is right for
// a named user with the usual home; the provisioner, once the container exists, reads the image's
// /etc/passwd and places the files here for the real account: its home, its uid and gid. Pure.
class UserAccounts
{
public:
    static UserAccounts parse(const QByteArray &passwd);

    std::optional<UserAccount> byName(const QString &name) const;
    std::optional<UserAccount> byUid(int uid) const;
    // A task's `user` ("name", "uid", "name:group", "uid:gid"; empty = root). A numeric group
    // replaces the account's primary one. A numeric uid missing from passwd still resolves
    // (home as the plan put it); an unknown name does not.
    std::optional<UserAccount> resolve(const QString &user) const;

    // Whether placing `kernel`'s files needs the image's accounts: it runs as someone other
    // than root and owns some of its files.
    static bool needsLookup(const KernelSpec &kernel);

    // `kernel`'s files for the account it runs as: paths under the planned home move to the
    // account's home, files owned by the task's user become "<uid>:<gid>", and `User <uid>`
    // lines of ~/.ssh/config name the account (ssh logs in by name). `home` receives the home
    // the files were placed in. Unchanged when the user cannot be resolved.
    QList<PlannedFile> placeFiles(const KernelSpec &kernel, QString *home = nullptr) const;

private:
    QList<UserAccount> m_accounts;
};

} // namespace ClusterDeck
