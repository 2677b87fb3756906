-- The business catalog that lead-finder searches and lead-qualify matches against.
-- pg_trgm lives in this schema so that its operator classes resolve on the service's search_path.
CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE TABLE businesses (
    id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    external_id    text        NOT NULL UNIQUE,
    name           text        NOT NULL,
    owner_name     text        NOT NULL DEFAULT '',
    email          text        NOT NULL DEFAULT '',
    email_domain   text        NOT NULL DEFAULT '',
    phone          text        NOT NULL DEFAULT '',
    website        text        NOT NULL DEFAULT '',
    website_domain text        NOT NULL DEFAULT '',
    vertical       text        NOT NULL,
    categories     text[]      NOT NULL DEFAULT '{}',
    street         text        NOT NULL DEFAULT '',
    city           text        NOT NULL,
    state          char(2)     NOT NULL,
    zip            text        NOT NULL DEFAULT '',
    lat            double precision,
    lng            double precision,
    source         text        NOT NULL,
    gap_score      smallint    NOT NULL CHECK (gap_score BETWEEN 0 AND 100),
    quality        smallint    NOT NULL CHECK (quality BETWEEN 0 AND 50),
    search         tsvector    NOT NULL,
    listed_at      timestamptz NOT NULL,
    created_at     timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now()
);

-- lead-finder: best rows of a vertical, optionally within a state, straight off the index.
CREATE INDEX businesses_vertical_quality ON businesses (vertical, quality DESC, id);
CREATE INDEX businesses_state_vertical_quality ON businesses (state, vertical, quality DESC, id);
-- lead-finder location filters, with and without a vertical.
CREATE INDEX businesses_vertical_city_quality ON businesses (vertical, lower(city), quality DESC, id);
CREATE INDEX businesses_city ON businesses (lower(city), state);
CREATE INDEX businesses_zip ON businesses (zip, vertical);
-- industry and keyword text matches.
CREATE INDEX businesses_search ON businesses USING gin (search);
CREATE INDEX businesses_name_trgm ON businesses USING gin (name gin_trgm_ops);
-- lead-qualify catalog match.
CREATE INDEX businesses_email_domain ON businesses (email_domain);
CREATE INDEX businesses_website_domain ON businesses (website_domain);
CREATE INDEX businesses_phone ON businesses (phone);
CREATE INDEX businesses_lower_name ON businesses (lower(name));
-- scout-stats last7Days and dateRange.
CREATE INDEX businesses_listed_at ON businesses (listed_at);
