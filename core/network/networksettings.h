#pragma once

#include "common/error.h"
#include "common/networkdriver.h"
#include "common/overlaypool.h"

#include <QString>

namespace ClusterDeck {

class SettingStore;

// The store's multi-node network settings (issue 26), read and written with their validation, so
// the CLI (`network setup`, `network show`), the console and the provisioner agree on what is
// valid and on the defaults. The values are store-wide settings (StateStore::setting):
//
//   network.driver      "vxlan" | "swarm"              unset: vxlan, the default of every store
//   network.pool        IPv4 CIDR, /24 or wider        unset: OverlayPool's 100.64.0.0/10
//   network.vnis        VXLAN ids "FIRST-LAST" or one  unset: 1048576-16777215
//   network.vxlan-port  UDP port 1024-65535            unset: 4789
//
// A stored value that does not parse is an error naming the setting and the value (nothing falls
// back to a default silently: sessions would get another network than the admin configured).
// Writes check the value first: an invalid one is Kind::Invalid and nothing is written.
class NetworkSettings
{
public:
    static inline const char kDriverKey[] = "network.driver";
    static inline const char kPoolKey[] = "network.pool";
    static inline const char kVnisKey[] = "network.vnis";
    static inline const char kVxlanPortKey[] = "network.vxlan-port";
    static constexpr int kDefaultVxlanPort = 4789; // IANA's VXLAN port, the kernel's default
    static constexpr int kMinVxlanPort = 1024;
    static constexpr int kMaxVxlanPort = 65535;

    // Everything at once, as `network show` prints it.
    struct Values
    {
        NetworkDriver driver = NetworkDriver::Vxlan;
        OverlayPool pool = OverlayPool::defaults();
        int vxlanPort = kDefaultVxlanPort;
    };

    static Result<NetworkDriver> driver(SettingStore &store);
    static Result<void> setDriver(SettingStore &store, NetworkDriver driver);
    // `subnets` ("100.64.0.0/10") and `vnis` ("1048576-16777215", "5005") as OverlayPool::parse
    // reads them; an empty one removes its setting (its default applies).
    static Result<OverlayPool> pool(SettingStore &store);
    static Result<void> setPool(SettingStore &store, const QString &subnets, const QString &vnis);
    static Result<int> vxlanPort(SettingStore &store);
    static Result<void> setVxlanPort(SettingStore &store, int port);
    static Result<Values> read(SettingStore &store);

    // The checks the setters make, for callers that validate every value before writing any
    // (`network setup --driver … --pool …`). `where` names the option or setting in the error.
    static Result<NetworkDriver> parseDriver(const QString &text, const QString &where);
    static Result<int> parseVxlanPort(const QString &text, const QString &where);
    static Result<void> checkVxlanPort(int port, const QString &where);
};

} // namespace ClusterDeck
