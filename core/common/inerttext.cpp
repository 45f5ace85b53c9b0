#include "inerttext.h"

namespace ClusterDeck {

bool InertText::isControl(char32_t c)
{
    return (c < 0x20 && c != u'\t' && c != u'\n') || c == 0x7f || (c >= 0x80 && c < 0xa0);
}

QString InertText::of(const QString &text)
{
    const auto controlAt = [](QChar c) {
        return isControl(c.unicode());
    };
    if (std::none_of(text.cbegin(), text.cend(), controlAt))
        return text;
    QString out;
    out.reserve(text.size() + 16);
    for (const QChar c : text) {
        const char16_t u = c.unicode();
        if (!isControl(u))
            out.append(c);
        else if (u == 0x1b)
            out.append(QLatin1String("\\e"));
        else if (u < 0x80)
            out.append(QStringLiteral("\\x%1").arg(int(u), 2, 16, QLatin1Char('0')));
        else
            out.append(QStringLiteral("\\u%1").arg(int(u), 4, 16, QLatin1Char('0')));
    }
    return out;
}

} // namespace ClusterDeck
