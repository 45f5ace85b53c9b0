#pragma once

#include "common/error.h"

#include <QString>

namespace ClusterDeck {

// Store-wide settings (issue 26: `network.driver`, `network.pool` …; a StateStore role): short
// strings under keys of [a-z0-9.-]+, shared by every console and CLI of the store (SQLite: the
// table `settings`; etcd: <prefix>/settings/<key>). A key never set reads as "". An empty value
// removes the key. The store only checks the key (Kind::Invalid naming it otherwise); what a
// value means, and whether it is valid, is its reader's business (NetworkSettings). Announced as
// StateStore::settingChanged(key), in this process at once and in others like every change.
class SettingStore
{
public:
    virtual Result<QString> setting(const QString &key) const = 0;
    virtual Result<void> setSetting(const QString &key, const QString &value) = 0;
    // The check both backends make: nothing when `key` is a valid setting key.
    static Result<void> checkSettingKey(const QString &key);

protected:
    ~SettingStore() = default; // owned as the StateStore it is part of
};

} // namespace ClusterDeck
