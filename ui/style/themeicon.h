#pragma once

#include <QIcon>
#include <QString>

namespace ClusterDeck::Ui {

// The desktop icon theme's icon `name` (a freedesktop name such as "view-refresh"), or the
// bundled SVG of the same name when the theme has none (no theme offscreen, under xvfb, or on a
// minimal desktop): every toolbar and menu action shows an icon either way.
QIcon themeIcon(const QString &name);

// Whether a bundled fallback exists for `name` (tests check every name the console uses).
bool hasFallbackIcon(const QString &name);

} // namespace ClusterDeck::Ui
