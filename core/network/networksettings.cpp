#include "networksettings.h"

#include "common/inerttext.h"
#include "store/settingstore.h"
#include "vxlansegment.h"

namespace ClusterDeck {

static_assert(NetworkSettings::kDefaultVxlanPort == VxlanSegment::kDefaultPort);

namespace {

QString name(const char *key)
{
    return QString::fromLatin1(key);
}

// A stored value that does not parse: which setting, what it holds, why, and how to fix it.
Error badStored(const char *key, const QString &value, const Error &why)
{
    return Error::make(Error::Kind::Decode, QStringLiteral("setting %1").arg(name(key)),
                       QStringLiteral("the stored value \"%1\" is not valid (%2); set it again "
                                      "with clusterdeckctl network setup")
                           .arg(InertText::of(value), why.message));
}

} // namespace

Result<NetworkDriver> NetworkSettings::parseDriver(const QString &text, const QString &where)
{
    if (auto driver = parseNetworkDriver(text))
        return *driver;
    return fail(
        Error::Kind::Invalid, where,
        QStringLiteral("\"%1\" is not a network driver: vxlan or swarm").arg(InertText::of(text)));
}

Result<void> NetworkSettings::checkVxlanPort(int port, const QString &where)
{
    if (port >= kMinVxlanPort && port <= kMaxVxlanPort)
        return {};
    return fail(Error::Kind::Invalid, where,
                QStringLiteral("the VXLAN port must be a UDP port from %1 to %2 (the default is "
                               "%3); %4 is not")
                    .arg(kMinVxlanPort)
                    .arg(kMaxVxlanPort)
                    .arg(kDefaultVxlanPort)
                    .arg(port));
}

Result<int> NetworkSettings::parseVxlanPort(const QString &text, const QString &where)
{
    const QString t = text.trimmed();
    bool ok = !t.isEmpty() && t.size() <= 5 && t.front().isDigit(); // no sign, no blank
    const int port = ok ? t.toInt(&ok) : 0;
    if (!ok)
        return fail(Error::Kind::Invalid, where,
                    QStringLiteral("\"%1\" is not a UDP port (a number from %2 to %3)")
                        .arg(InertText::of(text))
                        .arg(kMinVxlanPort)
                        .arg(kMaxVxlanPort));
    if (auto valid = checkVxlanPort(port, where); !valid)
        return fail(valid.error());
    return port;
}

Result<NetworkDriver> NetworkSettings::driver(SettingStore &store)
{
    auto stored = store.setting(name(kDriverKey));
    if (!stored)
        return fail(stored.error());
    if (stored->isEmpty())
        return NetworkDriver::Vxlan;
    auto driver = parseDriver(*stored, name(kDriverKey));
    if (!driver)
        return fail(badStored(kDriverKey, *stored, driver.error()));
    return *driver;
}

Result<void> NetworkSettings::setDriver(SettingStore &store, NetworkDriver driver)
{
    return store.setSetting(name(kDriverKey), networkDriverName(driver));
}

Result<OverlayPool> NetworkSettings::pool(SettingStore &store)
{
    auto subnets = store.setting(name(kPoolKey));
    if (!subnets)
        return fail(subnets.error());
    auto vnis = store.setting(name(kVnisKey));
    if (!vnis)
        return fail(vnis.error());
    // Each part alone first, so the error names the setting that is wrong.
    if (auto range = OverlayPool::parse(*subnets, QString()); !range)
        return fail(badStored(kPoolKey, *subnets, range.error()));
    if (auto ids = OverlayPool::parse(QString(), *vnis); !ids)
        return fail(badStored(kVnisKey, *vnis, ids.error()));
    return OverlayPool::parse(*subnets, *vnis);
}

Result<void> NetworkSettings::setPool(SettingStore &store, const QString &subnets,
                                      const QString &vnis)
{
    auto pool = OverlayPool::parse(subnets, vnis);
    if (!pool)
        return fail(pool.error());
    // Stored as written by OverlayPool::toString's parts, whatever spacing was typed.
    const QString range = subnets.trimmed().isEmpty() ? QString() : pool->range().toString();
    const QString ids = vnis.trimmed().isEmpty()
                            ? QString()
                            : QStringLiteral("%1-%2").arg(pool->firstVni()).arg(pool->lastVni());
    if (auto ok = store.setSetting(name(kPoolKey), range); !ok)
        return ok;
    return store.setSetting(name(kVnisKey), ids);
}

Result<int> NetworkSettings::vxlanPort(SettingStore &store)
{
    auto stored = store.setting(name(kVxlanPortKey));
    if (!stored)
        return fail(stored.error());
    if (stored->isEmpty())
        return kDefaultVxlanPort;
    auto port = parseVxlanPort(*stored, name(kVxlanPortKey));
    if (!port)
        return fail(badStored(kVxlanPortKey, *stored, port.error()));
    return *port;
}

Result<void> NetworkSettings::setVxlanPort(SettingStore &store, int port)
{
    if (auto ok = checkVxlanPort(port, name(kVxlanPortKey)); !ok)
        return ok;
    return store.setSetting(name(kVxlanPortKey), QString::number(port));
}

Result<NetworkSettings::Values> NetworkSettings::read(SettingStore &store)
{
    Values values;
    auto driver = NetworkSettings::driver(store);
    if (!driver)
        return fail(driver.error());
    auto pool = NetworkSettings::pool(store);
    if (!pool)
        return fail(pool.error());
    auto port = vxlanPort(store);
    if (!port)
        return fail(port.error());
    values.driver = *driver;
    values.pool = *pool;
    values.vxlanPort = *port;
    return values;
}

} // namespace ClusterDeck
