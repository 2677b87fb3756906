-- A radius search (lead-finder radiusMiles, issue 26) reads a vertical's businesses in a latitude
-- band around the point instead of all of the vertical's rows.
CREATE INDEX businesses_vertical_lat ON businesses (vertical, lat) WHERE lat IS NOT NULL;
