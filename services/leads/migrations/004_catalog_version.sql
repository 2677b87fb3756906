-- Bumped by every catalog import, so cached statistics of an older catalog are never served.
CREATE TABLE catalog_version (
    singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    version   bigint  NOT NULL
);
INSERT INTO catalog_version (version) VALUES (0);
