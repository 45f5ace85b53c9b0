#include "settingstore.h"

#include <QRegularExpression>

namespace ClusterDeck {

Result<void> SettingStore::checkSettingKey(const QString &key)
{
    // Anchored: "$" alone would let a trailing newline through.
    static const QRegularExpression valid(
        QRegularExpression::anchoredPattern(QStringLiteral("[a-z0-9.-]+")));
    if (valid.match(key).hasMatch())
        return {};
    return fail(Error::Kind::Invalid, QStringLiteral("setting \"%1\"").arg(key),
                key.isEmpty() ? QStringLiteral("a setting needs a name (like network.driver)")
                              : QStringLiteral("a setting's name is made of lower-case letters, "
                                               "digits, '.' and '-' (like network.driver)"));
}

} // namespace ClusterDeck
