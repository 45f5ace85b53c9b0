#include "imagereference.h"

#include <QRegularExpression>

namespace ClusterDeck::Registry {

namespace {

bool looksLikeDomain(const QString &component)
{
    // Docker's rule: the first component is a registry when it has a '.' or a ':' or is
    // "localhost"; otherwise it is part of a Docker Hub path.
    return component.contains(QLatin1Char('.')) || component.contains(QLatin1Char(':')) ||
           component == QLatin1String("localhost");
}

} // namespace

Result<ImageReference> ImageReference::parse(const QString &reference)
{
    static const QRegularExpression pathRe(
        QStringLiteral("^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*(?:/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)*$"));
    static const QRegularExpression tagRe(QStringLiteral("^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$"));
    static const QRegularExpression digestRe(QStringLiteral("^[a-z0-9]+(?:[+._-][a-z0-9]+)*:[a-fA-F0-9]{32,}$"));
    auto invalid = [&](const QString &why) {
        return fail(Error::Kind::Invalid, QStringLiteral("image \"%1\"").arg(reference), why);
    };
    const QString text = reference.trimmed();
    if (text.isEmpty())
        return invalid(QStringLiteral("the image reference is empty"));

    ImageReference r;
    QString rest = text;
    if (const qsizetype at = rest.indexOf(QLatin1Char('@')); at >= 0) {
        r.digest = rest.mid(at + 1);
        rest = rest.left(at);
        if (!digestRe.match(r.digest).hasMatch())
            return invalid(QStringLiteral("\"%1\" is not a digest (sha256:<hex>)").arg(r.digest));
    }
    const qsizetype slash = rest.indexOf(QLatin1Char('/'));
    if (slash > 0 && looksLikeDomain(rest.left(slash))) {
        r.domain = rest.left(slash);
        rest = rest.mid(slash + 1);
    } else {
        r.domain = QLatin1String(kDockerHub);
    }
    // A ':' after the last '/' is the tag (one before it belongs to the domain's port).
    if (const qsizetype colon = rest.lastIndexOf(QLatin1Char(':'));
        colon > rest.lastIndexOf(QLatin1Char('/'))) {
        r.tag = rest.mid(colon + 1);
        rest = rest.left(colon);
        if (!tagRe.match(r.tag).hasMatch())
            return invalid(QStringLiteral("\"%1\" is not a valid tag").arg(r.tag));
    }
    if (!pathRe.match(rest).hasMatch())
        return invalid(QStringLiteral("\"%1\" is not a valid repository name (lower case letters, "
                                      "digits, '.', '_', '-', '/')")
                           .arg(rest));
    if (r.isDockerHub() && !rest.contains(QLatin1Char('/')))
        rest.prepend(QStringLiteral("library/"));
    r.repository = rest;
    if (r.tag.isEmpty() && r.digest.isEmpty())
        r.tag = QStringLiteral("latest");
    return r;
}

QString ImageReference::name() const
{
    if (isDockerHub()) {
        return repository.startsWith(QLatin1String("library/")) ? repository.mid(8) : repository;
    }
    return domain + QLatin1Char('/') + repository;
}

QString ImageReference::pullReference() const
{
    if (!digest.isEmpty())
        return name() + QLatin1Char('@') + digest;
    return name() + QLatin1Char(':') + tag;
}

QString ImageReference::pinned(const QString &repoDigest) const
{
    return name() + QLatin1Char('@') + repoDigest;
}

QString ImageReference::authKey() const
{
    return isDockerHub() ? QString::fromLatin1(kDockerHubAuthKey) : domain;
}

QString normalizeRegistryKey(const QString &registry)
{
    QString r = registry.trimmed();
    if (r.isEmpty() || r == QLatin1String("docker.io") || r == QLatin1String("index.docker.io") ||
        r.contains(QLatin1String("index.docker.io/v1")))
        return QString::fromLatin1(ImageReference::kDockerHubAuthKey);
    // Docker keeps "https://host" keys as written by old clients; match them by host.
    if (r.startsWith(QLatin1String("https://")))
        r = r.mid(8);
    else if (r.startsWith(QLatin1String("http://")))
        r = r.mid(7);
    if (const qsizetype slash = r.indexOf(QLatin1Char('/')); slash >= 0)
        r = r.left(slash);
    return r;
}

} // namespace ClusterDeck::Registry
